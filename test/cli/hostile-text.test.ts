import assert from 'node:assert/strict'
import {mkdir, readdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {XMLValidator} from 'fast-xml-parser'
import {compareEntryNames} from '../../src/archive/names.js'
import {writeArchive} from '../../src/archive/writer.js'
import {showsAsItself, visibleText} from '../../src/model/visible-text.js'
import {reportFormats} from '../../src/report/render.js'
import {runCli, tempDir, type CliOptions, type CliResult} from '../helpers/cli.js'
import {assertHostileManifestsContained} from './hostile-text-property.js'
import {hostileText, parseWorkflowCommand, rawInvisibleCharacters, shellWords, unescapedMarkdown, workflowCommandLines} from '../helpers/hostile-text.js'

// One manifest and one archive full of hostile strings (test/helpers/hostile-text.ts) through every command
// and every format, in this process: whatever a command prints — results, warnings, errors, reports,
// the job summary — holds no raw control or invisible character, no workflow command the tool did not
// write, no live Markdown of a value, only well-formed XML and JSON, and every command it suggests is read
// back by a POSIX shell as exactly the arguments meant (docs/output-escaping.md).

/** Everything a run printed, and how to judge it. */
interface Printed {
  args: string[]
  result: CliResult
  /** The format of stdout. */
  format: 'text' | 'json' | 'github' | 'junit' | 'sarif' | 'gitlab'
  /** What the run appended to $GITHUB_STEP_SUMMARY. */
  summary?: string
}

const printed: Printed[] = []
let scratch: {dir: string; cleanup: () => Promise<void>}
const at = (...parts: string[]): string => path.join(scratch.dir, ...parts)

/** Printable but hostile to a shell and to Markdown: folder names that get a quoted command. */
const shellHostile = "work $(touch${IFS}PWNED) `touch PWNED` [x](evil.example) it's"
/** A name for a display field: every hostile fragment but the control characters a name may not hold. */
const hostileName = `::error::name \u202e[Click](//evil.example) ##[add-mask]n $(touch\${IFS}PWNED) \u200b'"|<b>&amp;`
/** Archive and source entry names the entry-path policy accepts, hostile to a shell, Markdown and XML. */
const hostileEntries = ['$(touch${IFS}PWNED)', '`touch PWNED`', "it's 'single'", '[Click to fix](evil.example)', '![image](evil.example)', '##[error]legacy', '$x^2$ @octocat #1 &amp;', '-rf', '__strong__ _em_ ~~x~~ +1']
/** A member name, and a RID, with everything in it. */
const hostileKey = `\u001b[2J\n::error::member\r\n::add-mask::m ${hostileName}`

/** The manifest of a plugin that validates (warnings only), hostile in every string field it may be. */
function validManifest(): Record<string, unknown> {
  return {
    manifestVersion: 1,
    id: 'com.example.hostile',
    version: '1.0.0',
    name: hostileName,
    description: hostileText,
    publisher: {name: hostileText, id: 'com.example', email: hostileText},
    license: hostileText,
    entrypoints: {'linux-x64': {executable: 'runtimes/linux-x64/run', arguments: [hostileText, '$(touch${IFS}PWNED)']}},
    permissions: ['::error::permission', hostileText, '[perm](evil.example)'],
    [hostileKey]: hostileText,
  }
}

/** A manifest that is wrong in every place a hostile string can stand: ids, RIDs, member names, references. */
function invalidManifest(): Record<string, unknown> {
  return {
    manifestVersion: 1,
    id: hostileText,
    version: hostileName,
    name: hostileText,
    publisher: {name: hostileText, id: hostileName, [hostileKey]: 1},
    entrypoints: {[hostileKey]: {executable: hostileText, runtime: {kind: hostileName}}, 'linux-x64': {executable: '../$(touch${IFS}PWNED)'}},
    dependencies: [{id: hostileText, versionRange: hostileName}],
    conflicts: [{id: hostileName}],
    languages: [hostileName],
    icon: hostileText,
    homepage: 'https://evil.example/[Click](x)',
    [hostileKey]: {[hostileKey]: hostileText},
  }
}

async function writeFolder(folder: string, manifest: Record<string, unknown>, files: readonly string[]): Promise<void> {
  await mkdir(folder, {recursive: true})
  await writeFile(path.join(folder, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  for (const name of files) {
    await mkdir(path.dirname(path.join(folder, name)), {recursive: true})
    await writeFile(path.join(folder, name), 'content\n')
  }
}

/** An archive of `entries` (name → text), written by the archive writer. */
async function writeZip(file: string, entries: Record<string, string>): Promise<void> {
  await mkdir(path.dirname(file), {recursive: true})
  await writeArchive(
    file,
    Object.keys(entries)
      .sort((a, b) => (a === 'manifest.json' ? -1 : b === 'manifest.json' ? 1 : compareEntryNames(a, b)))
      .map((name) => ({name, mode: 0o644, store: false, source: {kind: 'buffer' as const, data: Buffer.from(entries[name]!)}})),
  )
}

/** Runs a command and keeps what it printed for the checks below. */
async function run(args: string[], format: Printed['format'] = args.includes('--json') ? 'json' : 'text', options: CliOptions = {}): Promise<CliResult> {
  const summaryFile = format === 'github' ? at(`summary-${printed.length}.md`) : undefined
  const env = {...options.env, ...(summaryFile === undefined ? {} : {GITHUB_STEP_SUMMARY: summaryFile})}
  const result = await runCli(args, {cwd: at('cwd'), ...options, env})
  const summary = summaryFile === undefined ? undefined : await readFile(summaryFile, 'utf8').catch(() => undefined)
  printed.push({args, result, format, ...(summary === undefined ? {} : {summary})})
  return result
}

const valid = (): string => at('valid')
const invalid = (): string => at('invalid')
const unsafe = (): string => at('unsafe')
const nestedFolder = `${hostileEntries.slice(0, 5).join(' ')}`

before(async () => {
  scratch = await tempDir('svc-plugin-hostile-text-')
  await mkdir(at('cwd'))
  await writeFolder(valid(), validManifest(), ['runtimes/linux-x64/run', ...hostileEntries.map((name) => `assets/${name}`), '[Click to fix](evil.example)/file'])
  await writeFolder(invalid(), invalidManifest(), hostileEntries.map((name) => `assets/${name}`))
  // Names the entry-path policy refuses: pack, validate and inspect of the folder say why, naming them.
  await writeFolder(unsafe(), validManifest(), ['runtimes/linux-x64/run', 'evil\n::error::x', '\u001b[2Jclear', '\u202eexe.txt', 'zero\u200bwidth', 'filler\u3164'])
  await writeZip(at(shellHostile, 'invalid.svcPlugin'), {'manifest.json': JSON.stringify(invalidManifest()), ...Object.fromEntries(hostileEntries.map((name) => [`assets/${name}`, 'x']))})
  // The plugin folder zipped one level too deep, under names hostile to a shell: advice with a quoted command.
  await writeZip(at('nested.svcPlugin'), {[`${nestedFolder}/manifest.json`]: JSON.stringify(validManifest()), [`${nestedFolder}/assets/x`]: 'x'})
  await writeZip(at('nested-dash.svcPlugin'), {'-rf/manifest.json': JSON.stringify(validManifest())})
})
after(() => scratch.cleanup())

describe('hostile text through every command', () => {
  it('validate: every subject in every format, the job summary with the github format', async () => {
    const subjects = [[valid()], [invalid()], [unsafe()], ['--artifact', at(shellHostile, 'invalid.svcPlugin')], ['--artifact', at('nested.svcPlugin')], [valid(), invalid(), at('nested.svcPlugin'), at('missing', hostileName)]]
    for (const subject of subjects) {
      for (const format of reportFormats) await run(['validate', ...subject, '--format', format], format)
      await run(['validate', ...subject, '--quiet'])
    }
    const inspectable = printed.find((item) => item.args[1] === valid() && item.format === 'text')
    assert.ok(inspectable?.result.stdout.includes(visibleText('::error::permission')), 'the hostile values are shown, escaped')
  })

  it('inspect: folders and artifacts, as text and JSON', async () => {
    for (const subject of [valid(), invalid(), unsafe(), at(shellHostile, 'invalid.svcPlugin'), at('nested.svcPlugin'), at('nested-dash.svcPlugin')]) {
      await run(['inspect', subject])
      await run(['inspect', subject, '--json'])
    }
    const text = await run(['inspect', valid()])
    assert.ok(text.stdout.includes(`description:    ${visibleText(hostileText)}\n`), text.stdout)
    const json = await run(['inspect', valid(), '--json'])
    assert.equal(JSON.parse(json.stdout).description, hostileText, 'JSON gives the value exactly')
  })

  it('pack, sign, verify, store verify, install, list, activate, uninstall, merge', async () => {
    const artifact = at(shellHostile, 'hostile.svcPlugin')
    const signed = at(shellHostile, 'signed.svcPlugin')
    const dataRoot = at('data root')
    await run(['pack', valid(), '--output', artifact, '--show-digest'])
    await run(['pack', valid(), '--dry-run', '--output', at('dry.svcPlugin')])
    await run(['pack', valid(), '--dry-run', '--json', '--output', at('dry.svcPlugin')])
    for (const folder of [invalid(), unsafe()]) {
      await run(['pack', folder, '--output', at('refused.svcPlugin')])
      await run(['pack', folder, '--output', at('refused.svcPlugin'), '--json'])
    }
    await run(['keygen', '--output', at('keys'), '--name', hostileName])
    await run(['keygen', '--output', at('keys')])
    await run(['cert', 'root', '--output', at('pki'), '--root-key-id', 'root_hostile'])
    const issue = ['cert', 'issue', '--root-key', at('pki', 'root.key'), '--root-key-id', 'root_hostile', '--subject-public-key', at('keys', 'signing.pub'), '--subject-kind', 'creator', '--subject-id', 'com.example', '--not-after', '2099-01-01T00:00:00Z']
    await run([...issue, '--subject-name', hostileText, '--output', at('cert-hostile')])
    await run([...issue, '--subject-name', hostileName, '--output', at('cert-hostile'), '--json'])
    const issued = await run([...issue, '--subject-name', shellHostile, '--output', at('cert')])
    assert.equal(issued.status, 0, issued.stderr)
    const signing = ['--private-key', at('keys', 'signing.key'), '--certificate', at('cert', 'certificate.json'), '--certificate-signature', at('cert', 'certificate.sig')]
    assert.equal((await run(['sign', artifact, ...signing, '--output', signed])).status, 0)
    await run(['sign', artifact, ...signing, '--output', at('signed-again.svcPlugin'), '--json'])
    await run(['sign', at(shellHostile, 'invalid.svcPlugin'), ...signing, '--output', at('never.svcPlugin')])
    const trust = ['--trust', at('pki', 'trust.json')]
    for (const subject of [signed, artifact, at(shellHostile, 'invalid.svcPlugin'), at('nested.svcPlugin')]) {
      await run(['verify', subject, ...trust])
      await run(['verify', subject, ...trust, '--json'])
      await run(['store', 'verify', subject, ...trust, '--account-name', hostileText])
      await run(['store', 'verify', subject, ...trust, '--account-name', hostileName, '--account-id', 'com.example', '--json'])
      await run(['install', subject, ...trust, '--data-root', dataRoot])
    }
    await run(['cert', 'revoke', '--list', at('revocations.json'), '--root-key', at('pki', 'root.key'), '--root-key-id', 'root_hostile', '--certificate-id', hostileText, '--reason', 'key-compromise'])
    await run(['install', signed, ...trust, '--data-root', dataRoot, '--force', '--json'])
    await run(['list', '--data-root', dataRoot])
    await run(['list', '--data-root', dataRoot, '--json'])
    await run(['verify', '--installed', 'com.example.hostile', ...trust, '--data-root', dataRoot])
    await run(['activate', 'com.example.hostile', '1.0.0', '--data-root', dataRoot])
    await run(['activate', 'com.example.hostile', hostileName, '--data-root', dataRoot, '--json'])
    await run(['uninstall', 'com.example.hostile', '--data-root', dataRoot])
    await run(['uninstall', hostileName, '--data-root', dataRoot, '--json'])
    await run(['merge', at(shellHostile, 'invalid.svcPlugin'), artifact, '--output', at('merged.svcPlugin')])
    await run(['merge', at(shellHostile, 'invalid.svcPlugin'), artifact, '--output', at('merged.svcPlugin'), '--json'])
    await run(['merge', artifact, signed, '--output', at('merged.svcPlugin')])
  })

  it('init, schema, and an unknown command', async () => {
    await run(['init', at(shellHostile, 'new plugin')])
    await run(['init', at('control\u001b[31m\n::error::x'), '--json'])
    await run(['init', at('named'), '--name', hostileText])
    await run(['schema'], 'json')
    await run([hostileName.replace(/^::/, 'x'), '--json'])
    await run(['\u001b[31m::error::command'])
  })
})

describe('generated hostile manifests', () => {
  it('through inspect and validate hold nothing raw (a fixed sample; the exhaustive suite runs more)', async () => {
    await mkdir(at('generated'))
    await assertHostileManifestsContained(at('generated'), 6)
  })
})

describe('what they printed', () => {
  it('ran every command and every format', () => {
    const commands = new Set(printed.map((item) => (item.args[0] === 'cert' || item.args[0] === 'store' ? item.args.slice(0, 2).join(' ') : item.args[0])))
    for (const command of ['validate', 'inspect', 'pack', 'sign', 'verify', 'store verify', 'install', 'list', 'activate', 'uninstall', 'merge', 'init', 'keygen', 'cert root', 'cert issue', 'cert revoke', 'schema']) assert.ok(commands.has(command), command)
    assert.deepEqual([...new Set(printed.map((item) => item.format))].sort(), [...reportFormats].sort())
    assert.ok(printed.some((item) => item.summary !== undefined && item.summary.includes('### svc-plugin validate')))
  })

  it('holds no raw control, bidirectional or invisible character, on stdout, on stderr or in the summary', () => {
    for (const {args, result, summary} of printed) {
      for (const [channel, text] of [['stdout', result.stdout], ['stderr', result.stderr], ['summary', summary ?? '']] as const) {
        assert.deepEqual(rawInvisibleCharacters(text), [], `${channel} of ${JSON.stringify(args)}`)
      }
    }
  })

  it('holds no workflow command but the annotations of the github format', () => {
    for (const {args, result, format} of printed) {
      assert.deepEqual(workflowCommandLines(result.stderr), [], `stderr of ${JSON.stringify(args)}`)
      const commands = workflowCommandLines(result.stdout)
      if (format !== 'github') {
        assert.deepEqual(commands, [], `stdout of ${JSON.stringify(args)}`)
        continue
      }
      assert.deepEqual(commands, result.stdout.split('\n').filter((line) => line !== ''))
      for (const line of commands) {
        const parsed = parseWorkflowCommand(line)
        assert.ok(parsed !== null && ['error', 'warning', 'notice'].includes(parsed.command), line)
        assert.ok(Object.keys(parsed.properties).every((name) => ['file', 'line', 'col', 'title'].includes(name)), line)
        assert.ok(!line.includes('##['), line)
      }
    }
  })

  it('holds no Markdown of a value in the job summary', () => {
    const summaries = printed.flatMap((item) => (item.summary === undefined ? [] : [item.summary]))
    assert.ok(summaries.length >= 6)
    for (const summary of summaries) assert.deepEqual(unescapedMarkdown(summary), [], summary)
  })

  it('prints well-formed XML and JSON', () => {
    for (const {args, result, format} of printed) {
      if (format === 'junit') assert.equal(XMLValidator.validate(result.stdout), true, `${JSON.stringify(args)}: ${result.stdout}`)
      if ((format === 'json' || format === 'sarif' || format === 'gitlab') && result.stdout !== '') assert.doesNotThrow(() => JSON.parse(result.stdout), JSON.stringify(args))
    }
  })

  it('suggests only commands that a POSIX shell reads back as exactly the arguments meant', async () => {
    const expected = new Map<string, string[]>([
      [`svc-plugin pack ${nestedFolder}`, ['svc-plugin', 'pack', nestedFolder]],
      ['svc-plugin pack -- -rf', ['svc-plugin', 'pack', '--', '-rf']],
      [`svc-plugin validate ${at(shellHostile, 'new plugin')}`, ['svc-plugin', 'validate', at(shellHostile, 'new plugin')]],
      [`svc-plugin validate --artifact=${at(shellHostile, 'invalid.svcPlugin')}`, ['svc-plugin', 'validate', `--artifact=${at(shellHostile, 'invalid.svcPlugin')}`]],
    ])
    const suggested = new Map<string, string>()
    for (const {result, format} of printed) {
      // A JSON document's strings are read from the document; text is read as it is.
      const texts = [result.stderr, ...(format === 'text' ? [result.stdout] : jsonStrings(result.stdout))]
      for (const text of texts) {
        for (const match of text.matchAll(/(?:Run|run|Check it with:) (svc-plugin [^\n]*?)(?: on the folder| for every problem|\.?$|\.?\n)/gm)) suggested.set(match[1]!, text)
      }
    }
    const commands = [...suggested.keys()]
    const words = shellWords(commands, at('cwd'))
    const read = new Map(words.map((argv) => [argv.join(' '), argv]))
    for (const [name, argv] of expected) assert.deepEqual(read.get(argv.join(' ')), argv, `${name} among ${JSON.stringify(commands)}`)
    for (const argv of read.values()) assert.ok([...expected.values()].some((meant) => meant.join('\u0000') === argv.join('\u0000')) || argv.every(showsAsItself), JSON.stringify(argv))
    assert.deepEqual(await readdir(at('cwd')), [], 'no command substitution ran')
  })
})

/** Every string inside `text` when it is a JSON document (none otherwise). */
function jsonStrings(text: string): string[] {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return []
  }
  const strings: string[] = []
  const walk = (node: unknown): void => {
    if (typeof node === 'string') strings.push(node)
    else if (node !== null && typeof node === 'object') for (const child of Object.values(node)) walk(child)
  }
  walk(value)
  return strings
}
