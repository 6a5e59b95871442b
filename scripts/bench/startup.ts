/**
 * The start-up cases of `npm run bench`: every command of the command line run once on the example plugin
 * (a few KB), each to be compared with bare `node -e 0`. What a case needs (keys, a root, a signed
 * artifact, an installed plugin, two per-RID packages) is made here once with the command line itself;
 * what a run changes (an output, a data root) is undone before the next by its `before`.
 */
import {spawnSync} from 'node:child_process'
import {cpSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'

/** One command line to time, and what to undo before each run of it. */
export interface StartupCase {
  /** The command line after `svc-plugin`, as the table shows it. */
  readonly name: string
  readonly args: readonly string[]
  readonly before?: () => void
}

/** Runs the command line untimed (to make what a case needs); throws when it fails. */
function svcPlugin(cli: string, args: readonly string[], cwd: string): void {
  const run = spawnSync(process.execPath, [cli, ...args], {cwd, encoding: 'utf8'})
  if (run.status !== 0) throw new Error(`svc-plugin ${args.join(' ')} exited ${run.status}: ${run.stderr}`)
}

/** A copy of the example plugin that runs on `rid` alone (one entrypoint, one runtime folder), packed. */
function packForRid(cli: string, example: string, rid: string, work: string): string {
  const folder = path.join(work, `example-${rid}`)
  rmSync(folder, {recursive: true, force: true})
  cpSync(example, folder, {recursive: true})
  const manifestFile = path.join(folder, 'manifest.json')
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {entrypoints: Record<string, unknown>; $schema?: string}
  manifest.entrypoints = {[rid]: manifest.entrypoints[rid]}
  delete manifest.$schema
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)
  for (const other of Object.keys(JSON.parse(readFileSync(path.join(example, 'manifest.json'), 'utf8')).entrypoints as object)) {
    if (other !== rid) rmSync(path.join(folder, 'runtimes', other), {recursive: true, force: true})
  }
  const artifact = path.join(work, `example-${rid}.svcPlugin`)
  svcPlugin(cli, ['pack', folder, '--output', artifact, '--force', '--quiet'], work)
  return artifact
}

/**
 * Every command's case, in the order of the table: the example plugin folder `example`, its artifact
 * signed under `signed.trustFile`, and a folder `work` for what the cases make.
 */
export function startupCases(cli: string, example: string, signed: {signed: string; trustFile: string}, work: string): StartupCase[] {
  const at = (...parts: string[]) => path.join(work, 'startup', ...parts)
  rmSync(at(), {recursive: true, force: true})
  mkdirSync(at(), {recursive: true})
  const unsigned = at('example.svcPlugin')
  svcPlugin(cli, ['pack', example, '--output', unsigned, '--quiet'], work)
  const rootKeyId = 'root_startup'
  svcPlugin(cli, ['cert', 'root', '--output', at('root'), '--root-key-id', rootKeyId, '--quiet'], work)
  svcPlugin(cli, ['keygen', '--output', at('publisher'), '--name', 'publisher', '--quiet'], work)
  const issue = ['cert', 'issue', '--root-key', at('root', 'root.key'), '--root-key-id', rootKeyId, '--subject-public-key', at('publisher', 'publisher.pub'), '--subject-kind', 'organization', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-after', '2099-01-01T00:00:00Z']
  svcPlugin(cli, [...issue, '--output', at('certificate'), '--quiet'], work)
  const linux = packForRid(cli, example, 'linux-x64', at())
  const windows = packForRid(cli, example, 'win-x64', at())
  const dataRoot = at('host')
  const id = 'com.example.weather-station'
  const installed = (): void => {
    rmSync(dataRoot, {recursive: true, force: true})
    svcPlugin(cli, ['install', signed.signed, '--data-root', dataRoot, '--trust', signed.trustFile, '--quiet'], work)
  }
  installed()
  const removed = (...targets: string[]) => () => {
    for (const target of targets) rmSync(target, {recursive: true, force: true})
  }
  return [
    {name: '--version', args: ['--version']},
    {name: 'help', args: ['help']},
    {name: 'schema', args: ['schema']},
    {name: 'init', args: ['init', at('new-plugin'), '--quiet'], before: removed(at('new-plugin'))},
    {name: 'validate', args: ['validate', example, '--quiet']},
    {name: 'pack', args: ['pack', example, '--output', at('packed.svcPlugin'), '--force', '--quiet']},
    {name: 'inspect', args: ['inspect', unsigned]},
    {name: 'merge', args: ['merge', linux, windows, '--output', at('merged.svcPlugin'), '--force', '--quiet']},
    {name: 'keygen', args: ['keygen', '--output', at('keys'), '--name', 'k', '--quiet'], before: removed(at('keys'))},
    {name: 'cert root', args: ['cert', 'root', '--output', at('new-root'), '--quiet'], before: removed(at('new-root'))},
    {name: 'cert issue', args: [...issue, '--output', at('new-certificate'), '--quiet'], before: removed(at('new-certificate'))},
    {
      name: 'sign',
      args: ['sign', unsigned, '--private-key', at('publisher', 'publisher.key'), '--certificate', at('certificate', 'certificate.json'), '--certificate-signature', at('certificate', 'certificate.sig'), '--output', at('signed.svcPlugin'), '--quiet'],
      before: removed(at('signed.svcPlugin')),
    },
    {name: 'verify', args: ['verify', signed.signed, '--trust', signed.trustFile, '--quiet']},
    {
      name: 'cert revoke',
      args: ['cert', 'revoke', '--list', at('revocations', 'revocations.json'), '--root-key', at('root', 'root.key'), '--root-key-id', rootKeyId, '--artifact', signed.signed, '--reason', 'superseded', '--quiet'],
      before: removed(at('revocations')),
    },
    {name: 'store verify', args: ['store', 'verify', signed.signed, '--account-name', 'Example Labs', '--account-id', 'com.example', '--trust', signed.trustFile, '--quiet']},
    {name: 'install', args: ['install', signed.signed, '--data-root', at('new-host'), '--trust', signed.trustFile, '--quiet'], before: removed(at('new-host'))},
    {name: 'list', args: ['list', '--data-root', dataRoot]},
    {name: 'activate', args: ['activate', id, '1.4.2', '--data-root', dataRoot, '--quiet']},
    {name: 'verify --installed', args: ['verify', '--installed', id, '--data-root', dataRoot, '--trust', signed.trustFile, '--quiet']},
    {name: 'uninstall', args: ['uninstall', id, '--data-root', dataRoot, '--quiet'], before: installed},
  ]
}
