/**
 * `npm run demo`: the life of the bundled example plugin, command by command, in a temporary
 * folder — validate → pack → cert root → keygen → cert issue → sign → verify → install → list →
 * a tampered copy refused → update to a new version → activate the previous one → uninstall.
 * Every step runs the real CLI; a step whose exit status is not the expected one stops the demo
 * with exit 1, so the demo doubles as an end-to-end check.
 */
import {spawnSync} from 'node:child_process'
import {cp, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {openArchive} from '../src/archive/reader.js'
import {writeArchive, type WriterEntry} from '../src/archive/writer.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = path.join(repoRoot, 'bin', 'run.js')
const example = path.join(repoRoot, 'fixtures', 'example-plugin')
const broken = path.join(repoRoot, 'fixtures', 'broken-plugin')
const useColor = process.stdout.isTTY && process.env.NO_COLOR === undefined
const bold = (text: string) => (useColor ? `\x1b[1m${text}\x1b[22m` : text)
const dim = (text: string) => (useColor ? `\x1b[2m${text}\x1b[22m` : text)

let work = ''

function heading(text: string): void {
  process.stdout.write(`\n${bold(`── ${text}`)}\n`)
}

/** Runs `svc-plugin …args` in the work folder, prints the command and its output, checks the exit status. */
function run(args: string[], expect = 0): string {
  const shown = args.map((arg) => (arg.startsWith(repoRoot) ? path.relative(repoRoot, arg) : arg)).map((arg) => (/[\s"]/.test(arg) ? JSON.stringify(arg) : arg))
  process.stdout.write(`${dim('$')} svc-plugin ${shown.join(' ')}\n`)
  const result = spawnSync(process.execPath, [cli, ...args], {cwd: work, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}})
  const output = `${result.stdout}${result.stderr}`.trimEnd()
  if (output) process.stdout.write(`${output.replace(/^/gm, '  ')}\n`)
  if (result.status !== 0) process.stdout.write(dim(`  (exit ${result.status})\n`))
  if (result.status !== expect) {
    process.stderr.write(`demo: expected exit ${expect} from "svc-plugin ${args.join(' ')}", got ${result.status}\n`)
    process.exit(1)
  }
  return result.stdout
}

/** A copy of a signed artifact with one payload byte changed, the archive itself well-formed. */
async function tamperedCopy(signed: string, output: string): Promise<void> {
  const archive = await openArchive(signed)
  try {
    const entries: WriterEntry[] = []
    for (const entry of archive.entries) {
      let data = await archive.readEntry(entry)
      if (entry.name === 'runtimes/linux-x64/weather-station') data = Buffer.from(data.toString('utf8').replace('console.log', 'console.warn'))
      entries.push({name: entry.name, mode: (entry.mode & 0o111) !== 0 ? 0o755 : 0o644, store: entry.method === 0, source: {kind: 'buffer', data}})
    }
    await writeArchive(output, entries)
  } finally {
    await archive.close()
  }
}

/** Copies the plugin source `from` to `to` as `version`, its manifest changed by `change`. */
async function writeVersion(from: string, to: string, version: string, change: (manifest: Record<string, unknown>) => void = () => undefined): Promise<void> {
  await cp(from, to, {recursive: true})
  const manifestFile = path.join(to, 'manifest.json')
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>
  manifest.version = version
  delete manifest.$schema
  change(manifest)
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)
}

/** Runs another tool (OpenSSL) in the work folder, prints the command, stops the demo when it fails. */
function tool(command: string, args: string[]): string
function tool(command: string, args: string[], encoding: 'buffer'): Buffer
function tool(command: string, args: string[], encoding: 'utf8' | 'buffer' = 'utf8'): string | Buffer {
  process.stdout.write(`${dim('$')} ${command} ${args.join(' ')}\n`)
  const result = spawnSync(command, args, {cwd: work, encoding})
  if (result.status !== 0) {
    process.stderr.write(`demo: "${command} ${args.join(' ')}" failed (${result.error?.message ?? `exit ${result.status}`}): ${String(result.stderr)}\n`)
    process.exit(1)
  }
  return result.stdout
}

/** `cert issue` under the demo root, valid for a year: a certificate for `publicKey`, written to `output`. */
function issueUnderRoot(subject: {publicKey: string; kind: string; id: string; name: string; usage: string; output: string}): void {
  run([
    'cert', 'issue', '--root-key', 'root/root.key', '--root-key-id', 'root_demo',
    '--subject-public-key', subject.publicKey, '--subject-kind', subject.kind,
    '--subject-id', subject.id, '--subject-name', subject.name, '--usage', subject.usage,
    '--not-after', isoInDays(365), '--output', subject.output,
  ])
}

function isoInDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

async function main(): Promise<void> {
  work = await mkdtemp(path.join(tmpdir(), 'svc-plugin-demo-'))
  process.stdout.write(`Working in ${work}\n`)
  try {
    heading('1. Validate the example plugin at every level')
    for (const level of ['development', 'package', 'publication']) run(['validate', example, '--level', level])
    heading('2. A broken variant: every independent problem in one report')
    run(['validate', broken, '--level', 'package'], 1)

    heading('3. Pack it (deterministic: the same tree gives the same bytes anywhere)')
    run(['pack', example, '--output', 'weather-1.4.2.svcPlugin'])
    run(['inspect', 'weather-1.4.2.svcPlugin'])

    heading('4. A root, a publisher key and a package certificate')
    run(['cert', 'root', '--output', 'root', '--root-key-id', 'root_demo'])
    run(['keygen', '--output', 'publisher', '--name', 'publisher'])
    issueUnderRoot({publicKey: 'publisher/publisher.pub', kind: 'organization', id: 'com.example', name: 'Example Labs', usage: 'package', output: 'publisher'})

    heading('5. Sign and verify')
    const signArgs = ['--private-key', 'publisher/publisher.key', '--certificate', 'publisher/certificate.json', '--certificate-signature', 'publisher/certificate.sig']
    run(['sign', 'weather-1.4.2.svcPlugin', ...signArgs, '--output', 'weather-1.4.2.signed.svcPlugin'])
    run(['verify', 'weather-1.4.2.signed.svcPlugin', '--trust', 'root/trust.json'])

    heading('6. Install into a host data root, and list')
    run(['install', 'weather-1.4.2.signed.svcPlugin', '--data-root', 'host', '--trust', 'root/trust.json', '--rid', 'linux-x64', '--host-version', '2.3.0'])
    run(['list', '--data-root', 'host'])

    heading('7. A tampered copy is refused by verify and by install')
    await tamperedCopy(path.join(work, 'weather-1.4.2.signed.svcPlugin'), path.join(work, 'weather-1.4.2.tampered.svcPlugin'))
    run(['verify', 'weather-1.4.2.tampered.svcPlugin', '--trust', 'root/trust.json'], 1)
    run(['install', 'weather-1.4.2.tampered.svcPlugin', '--data-root', 'host', '--trust', 'root/trust.json', '--force'], 1)

    heading('8. Update to 1.5.0')
    await writeVersion(example, path.join(work, 'weather-1.5.0-src'), '1.5.0')
    run(['pack', 'weather-1.5.0-src', '--output', 'weather-1.5.0.svcPlugin'])
    run(['sign', 'weather-1.5.0.svcPlugin', ...signArgs, '--output', 'weather-1.5.0.signed.svcPlugin'])
    run(['install', 'weather-1.5.0.signed.svcPlugin', '--data-root', 'host', '--trust', 'root/trust.json', '--rid', 'linux-x64', '--host-version', '2.3.0'])
    run(['list', '--data-root', 'host'])

    heading('9. Roll back: activate the previous version')
    run(['activate', 'com.example.weather-station', '1.4.2', '--data-root', 'host'])
    run(['verify', '--installed', 'com.example.weather-station', '--data-root', 'host', '--trust', 'root/trust.json'])
    run(['list', '--data-root', 'host'])

    heading('10. Uninstall')
    run(['uninstall', 'com.example.weather-station', '--data-root', 'host'])
    run(['list', '--data-root', 'host'])

    heading('11. An update that asks for more')
    // 1.6.0 asks for fs:user-files, which the active 1.5.0 did not: refused, then accepted.
    run(['install', 'weather-1.5.0.signed.svcPlugin', '--data-root', 'host', '--trust', 'root/trust.json', '--rid', 'linux-x64', '--host-version', '2.3.0'])
    await writeVersion(example, path.join(work, 'weather-1.6.0-src'), '1.6.0', (wider) => {
      wider.permissions = [...((wider.permissions as string[] | undefined) ?? []), 'fs:user-files']
    })
    run(['pack', 'weather-1.6.0-src', '--output', 'weather-1.6.0.svcPlugin'])
    run(['sign', 'weather-1.6.0.svcPlugin', ...signArgs, '--output', 'weather-1.6.0.signed.svcPlugin'])
    run(['inspect', 'weather-1.6.0.signed.svcPlugin', '--compare', 'weather-1.5.0.signed.svcPlugin'])
    const update = ['install', 'weather-1.6.0.signed.svcPlugin', '--data-root', 'host', '--trust', 'root/trust.json', '--rid', 'linux-x64', '--host-version', '2.3.0']
    run(update, 1)
    run([...update, '--accept-new-permissions'])

    heading('12. A key that never leaves its vault')
    // OpenSSL holds the key (as a hardware module or an offline machine would); svc-plugin sees only the public half.
    tool('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', 'vault.pem'])
    const der = tool('openssl', ['pkey', '-in', 'vault.pem', '-pubout', '-outform', 'DER'], 'buffer')
    await writeFile(path.join(work, 'vault.pub'), `${Buffer.from(der.subarray(12)).toString('base64')}\n`)
    issueUnderRoot({publicKey: 'vault.pub', kind: 'organization', id: 'com.example', name: 'Example Labs', usage: 'package', output: 'vault'})
    const vaultChain = ['--certificate', 'vault/certificate.json', '--certificate-signature', 'vault/certificate.sig']
    run(['sign', 'weather-1.4.2.svcPlugin', ...vaultChain, '--prepare', 'weather.statement'])
    process.stdout.write(`${(await readFile(path.join(work, 'weather.statement'), 'utf8')).replace(/^/gm, '  ').trimEnd()}\n`)
    tool('openssl', ['pkeyutl', '-sign', '-rawin', '-inkey', 'vault.pem', '-in', 'weather.statement', '-out', 'weather.sig'])
    run(['sign', 'weather-1.4.2.svcPlugin', ...vaultChain, '--prepared', 'weather.statement', '--signature', 'weather.sig', '--output', 'weather-1.4.2.vault.svcPlugin'])
    run(['verify', 'weather-1.4.2.vault.svcPlugin', '--trust', 'root/trust.json'])

    heading('13. The store countersigns; a host requires it')
    run(['keygen', '--output', 'store', '--name', 'store'])
    issueUnderRoot({publicKey: 'store/store.pub', kind: 'service', id: 'store.example', name: 'Example Store', usage: 'registry', output: 'store'})
    const storeArgs = ['--account-name', 'Example Labs', '--account-id', 'com.example', '--trust', 'root/trust.json', '--certificate', 'store/certificate.json', '--certificate-signature', 'store/certificate.sig']
    run(['store', 'countersign', 'weather-1.4.2.signed.svcPlugin', ...storeArgs, '--private-key', 'store/store.key'])
    run(['verify', 'weather-1.4.2.signed.svcPlugin', '--trust', 'root/trust.json', '--require-store-signature'])
    run(['install', 'weather-1.4.2.signed.svcPlugin', '--data-root', 'store-host', '--trust', 'root/trust.json', '--rid', 'linux-x64', '--require-store-signature'])
    run(['verify', '--installed', 'com.example.weather-station', '--data-root', 'store-host', '--trust', 'root/trust.json', '--require-store-signature'])
    // Signed with the publisher's key, but never accepted by the store: no countersignature, refused.
    run(['verify', 'weather-1.5.0.signed.svcPlugin', '--trust', 'root/trust.json', '--require-store-signature'], 1)
    // The countersignature of 1.4.2 does not vouch for 1.5.0.
    run(['install', 'weather-1.5.0.signed.svcPlugin', '--data-root', 'store-host', '--trust', 'root/trust.json', '--rid', 'linux-x64', '--require-store-signature', '--store-signature', 'weather-1.4.2.signed.svcPlugin.countersig'], 1)

    heading('14. Prove a rebuild: the signed artifact is what the example packs to, an edited copy is not')
    run(['pack', example, '--reproduce', 'weather-1.4.2.signed.svcPlugin'])
    const edited = path.join(work, 'weather-edited-src')
    await cp(example, edited, {recursive: true})
    await writeFile(path.join(edited, 'README.md'), `${await readFile(path.join(example, 'README.md'), 'utf8')}\nEdited after the release.\n`)
    run(['pack', 'weather-edited-src', '--reproduce', 'weather-1.4.2.signed.svcPlugin'], 1)
    process.stdout.write(`\n${bold('Done.')} Every step above ran the real svc-plugin command line.\n`)
  } finally {
    await rm(work, {recursive: true, force: true})
  }
}

await main()
