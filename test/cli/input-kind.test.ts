import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {classifyInput, type InputKind} from '../../src/artifact/input-kind.js'
import {runCli, tempDir} from '../helpers/cli.js'
import {makeWorkspace, type Workspace} from '../helpers/workspace.js'

/** The kinds of path a user can hand a command, and one of each on disk. */
type Given = InputKind | 'missing'
const kinds: readonly Given[] = ['folder', 'artifact', 'manifest', 'file', 'missing']

/** What a command (or one of its flags) does with each kind: takes it (`ok`), or refuses it with this code. */
interface Case {
  name: string
  args: (subject: string) => string[]
  takes: readonly Given[]
  /** The code of the refusal of a kind it does not take (`null`: the reader's, for a file it cannot read as that kind). */
  refusal: Partial<Record<Given, string>>
}

describe('a path named for what it is', () => {
  let workspace: Workspace
  let paths: Record<Given, string>
  let dataRoot: string
  before(async () => {
    workspace = await makeWorkspace('svc-plugin-input-kind-')
    const notes = path.join(workspace.dir, 'notes.txt')
    await writeFile(notes, 'not a plugin\n')
    // A manifest away from its folder, so that a command given its folder finds nothing else.
    const manifest = path.join(workspace.dir, 'loose', 'manifest.json')
    await mkdir(path.dirname(manifest))
    await writeFile(manifest, await readFile(path.join(workspace.source, 'manifest.json')))
    paths = {folder: workspace.source, artifact: workspace.artifact, manifest, file: notes, missing: path.join(workspace.dir, 'missing')}
    dataRoot = path.join(workspace.dir, 'data')
  })
  after(async () => {
    await workspace.cleanup()
  })

  const trust = () => ['--trust', workspace.trust]
  let signed = 0
  const cases: Case[] = [
    {name: 'validate PATH', args: (subject) => ['validate', subject], takes: ['folder', 'artifact', 'manifest', 'file'], refusal: {missing: 'file-not-found'}},
    {name: 'validate --manifest', args: (subject) => ['validate', '--manifest', subject], takes: ['manifest', 'file'], refusal: {folder: 'not-a-manifest', artifact: 'not-a-manifest', missing: 'file-not-found'}},
    {name: 'validate --directory', args: (subject) => ['validate', '--directory', subject], takes: ['folder'], refusal: {artifact: 'not-a-folder', manifest: 'not-a-folder', file: 'not-a-folder', missing: 'file-not-found'}},
    {name: 'validate --artifact', args: (subject) => ['validate', '--artifact', subject], takes: ['artifact'], refusal: {folder: 'not-an-artifact', manifest: 'not-an-artifact', file: 'not-an-artifact', missing: 'file-not-found'}},
    {name: 'pack', args: (subject) => ['pack', subject, '--dry-run'], takes: ['folder'], refusal: {artifact: 'not-a-folder', manifest: 'not-a-folder', file: 'not-a-folder', missing: 'file-not-found'}},
    {name: 'inspect', args: (subject) => ['inspect', subject], takes: ['folder', 'artifact'], refusal: {manifest: 'not-an-artifact', file: 'not-an-artifact', missing: 'file-not-found'}},
    {name: 'verify', args: (subject) => ['verify', subject, ...trust()], takes: ['artifact'], refusal: {folder: 'not-an-artifact', manifest: 'not-an-artifact', file: 'not-an-artifact', missing: 'file-not-found'}},
    {name: 'install', args: (subject) => ['install', subject, '--data-root', dataRoot, '--allow-unsigned', '--force'], takes: ['artifact'], refusal: {folder: 'not-an-artifact', manifest: 'not-an-artifact', file: 'not-an-artifact', missing: 'file-not-found'}},
    {
      name: 'sign',
      args: (subject) => ['sign', subject, '--private-key', workspace.privateKey, '--certificate', workspace.certificate, '--certificate-signature', workspace.certificateSignature, '--output', path.join(workspace.dir, `signed-${++signed}.svcPlugin`)],
      takes: ['artifact'],
      refusal: {folder: 'not-an-artifact', manifest: 'not-an-artifact', file: 'not-an-artifact', missing: 'file-not-found'},
    },
    {name: 'store verify', args: (subject) => ['store', 'verify', subject, ...trust(), '--account-name', 'Example Labs'], takes: ['artifact'], refusal: {folder: 'not-an-artifact', manifest: 'not-an-artifact', file: 'not-an-artifact', missing: 'file-not-found'}},
    {name: 'merge', args: (subject) => ['merge', workspace.artifact, subject, '--output', path.join(workspace.dir, 'merged.svcPlugin'), '--force'], takes: ['artifact'], refusal: {folder: 'not-an-artifact', manifest: 'not-an-artifact', file: 'not-an-artifact', missing: 'file-not-found'}},
  ]

  /** The error code a run refused with: the JSON error's, or the deciding problem's archive code for a verification. */
  function codeOf(stdout: string): string | undefined {
    const document = JSON.parse(stdout) as {error?: {code: string}; problems?: Array<{code: string; archiveCode?: string}>}
    return document.error?.code ?? document.problems?.find((problem) => problem.archiveCode !== undefined)?.archiveCode
  }

  /** The words the message must hold for a path of `kind`: what it is. */
  const saysWhat: Record<InputKind, RegExp> = {folder: /is a folder, not /, artifact: /is a \.svcPlugin artifact \(a ZIP file\), not /, manifest: /is a manifest \(JSON text\), not /, file: /is a file, not |No ZIP end-of-central-directory record/}

  for (const entry of cases) {
    it(`${entry.name}: takes ${entry.takes.join(', ')}; refuses every other kind with exit 3 and its code, saying what was given and what takes it`, async () => {
      for (const kind of kinds) {
        const result = await runCli([...entry.args(paths[kind]), '--json'])
        if (entry.takes.includes(kind)) {
          assert.ok(result.status === 0 || result.status === 1, `${entry.name} ${kind}: exit ${result.status}\n${result.stdout}${result.stderr}`)
          assert.doesNotMatch(result.stdout, /"(not-an-artifact|not-a-manifest|not-a-folder|file-not-found)"/, `${entry.name} ${kind}`)
          continue
        }
        assert.equal(result.status, 3, `${entry.name} ${kind}: ${result.stdout}${result.stderr}`)
        assert.equal(codeOf(result.stdout), entry.refusal[kind], `${entry.name} ${kind}: ${result.stdout}`)
        if (kind === 'missing') continue
        assert.match(result.stdout, saysWhat[kind], `${entry.name} ${kind}`)
        // What takes it: a flag or a command, unless it is no kind of ours.
        if (kind !== 'file') assert.match(result.stdout, /svc-plugin (validate|pack|inspect)|--(manifest|directory|artifact)/, `${entry.name} ${kind}`)
      }
    })
  }

  it('the text form says the same on stderr: validate --manifest of an artifact, pack of a manifest, inspect of a manifest', async () => {
    const manifestMix = await runCli(['validate', '--manifest', paths.artifact])
    assert.equal(manifestMix.stderr, `error not-a-manifest: ${paths.artifact} is a .svcPlugin artifact (a ZIP file), not a manifest file. Pass it with --artifact, or as PATH, which is told apart by its content: svc-plugin validate ${paths.artifact}.\n`)
    const packMix = await runCli(['pack', paths.manifest])
    assert.equal(packMix.stderr, `error not-a-folder: ${paths.manifest} is a manifest (JSON text), not a plugin folder. Pack the folder that holds it: svc-plugin pack ${path.dirname(paths.manifest)}.\n`)
    const inspectMix = await runCli(['inspect', paths.manifest])
    assert.equal(
      inspectMix.stderr,
      `error not-an-artifact: ${paths.manifest} is a manifest (JSON text), not a .svcPlugin artifact. Check it with svc-plugin validate ${paths.manifest}, or pack the folder that holds it with svc-plugin pack ${path.dirname(paths.manifest)}.\n`,
    )
  })
})

describe('classifyInput', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  before(async () => {
    scratch = await tempDir('svc-plugin-classify-')
  })
  after(async () => {
    await scratch.cleanup()
  })

  it('tells a ZIP, JSON object text (after any byte order mark and white space) and anything else apart by content, whatever the name', async () => {
    const whiteSpace = fc.array(fc.constantFrom(' ', '\t', '\n', '\r'), {maxLength: 4}).map((characters) => characters.join(''))
    const content = fc.oneof(
      fc.tuple(fc.constantFrom('PK\x03\x04', 'PK\x05\x06'), fc.uint8Array({maxLength: 40})).map(([signature, rest]): [Buffer, InputKind] => [Buffer.concat([Buffer.from(signature, 'latin1'), rest]), 'artifact']),
      fc.tuple(fc.constantFrom('', '\ufeff'), whiteSpace, fc.json()).map(([mark, space, json]): [Buffer, InputKind] => [Buffer.from(`${mark}${space}{"x":${json}}`), 'manifest']),
      fc.tuple(whiteSpace, fc.json()).map(([space, json]): [Buffer, InputKind] => [Buffer.from(`\ufeff${space}{"x":${json}}`, 'utf16le'), 'manifest']),
      fc.uint8Array({maxLength: 40}).filter((bytes) => !/^(PK|\s*\{|\ufeff)/.test(Buffer.from(bytes).toString('latin1')) && bytes[0] !== 0xef && bytes[0] !== 0xfe && bytes[0] !== 0xff).map((bytes): [Buffer, InputKind] => [Buffer.from(bytes), 'file']),
    )
    let counter = 0
    await fc.assert(
      fc.asyncProperty(content, fc.constantFrom('manifest.json', 'plugin.svcPlugin', 'notes'), async ([bytes, kind], name) => {
        const file = path.join(scratch.dir, `${++counter}-${name}`)
        await writeFile(file, bytes)
        assert.equal(await classifyInput(file, file), kind)
      }),
      {numRuns: 200},
    )
    assert.equal(await classifyInput(scratch.dir, scratch.dir), 'folder')
  })

  it('refuses what is not there or cannot be opened without waiting, with the codes of an input file', async () => {
    const missing = path.join(scratch.dir, 'missing')
    await assert.rejects(classifyInput(missing, 'missing'), {code: 'file-not-found', message: 'missing does not exist.'})
    const fifo = path.join(scratch.dir, 'pipe')
    execFileSync('mkfifo', [fifo])
    await assert.rejects(classifyInput(fifo, 'pipe'), {code: 'not-a-regular-file'})
    assert.equal(existsSync(fifo), true)
  })
})
