import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'

import {install, isSvcPluginError, verifyArtifact} from '../../src/index.js'
import {inspect, validateArtifact} from '../../src/tooling.js'
import {createRoot} from '../../src/pki/trust.js'
import {tempDir} from '../helpers/cli.js'

const python = spawnSync('python3', ['-c', 'import zipfile']).status === 0
const zip = spawnSync('zip', ['-v']).status === 0

const manifest = JSON.stringify({manifestVersion: 1, id: 'com.example.foreign', name: 'Foreign', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'runtimes/linux-x64/app'}}})

let dir: string
let cleanup: () => Promise<void>
before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-foreign-'))
})
after(async () => {
  await cleanup()
})

/** Writes a ZIP with Python's zipfile, entry names exactly as given (as other archivers name them). */
function pythonZip(name: string, entries: [string, string][], options: {zip64?: boolean} = {}): string {
  const file = path.join(dir, name)
  const script = `
import json, sys, zipfile
entries = json.loads(sys.argv[2])
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    for n, d in entries:
        if sys.argv[3] == '1':
            with z.open(n, 'w', force_zip64=True) as f: f.write(d.encode())
        else:
            z.writestr(n, d)
`
  const result = spawnSync('python3', ['-c', script, file, JSON.stringify(entries), options.zip64 ? '1' : '0'])
  assert.equal(result.status, 0, String(result.stderr))
  return file
}

/** The code and message of what each reader of an artifact says about `file`. */
async function everyReader(file: string): Promise<{validate: {code: string; message: string}; inspect: {code: string; message: string}; verify: {code: string; message: string}; install: {code: string; message: string}}> {
  const report = await validateArtifact(file)
  const [first] = report.problems.filter((problem) => problem.severity === 'error')
  const caught = async (run: () => Promise<unknown>) => {
    try {
      await run()
    } catch (error) {
      if (isSvcPluginError(error)) return {code: error.code, message: error.message}
      throw error
    }
    throw new Error(`${file} was accepted`)
  }
  const trust = createRoot('root_test').trustStore
  const verified = await verifyArtifact(file, {trust})
  return {
    validate: {code: first!.code, message: first!.message},
    inspect: await caught(() => inspect(file)),
    verify: {code: verified.problems[0]!.archiveCode ?? verified.problems[0]!.code, message: verified.problems[0]!.message},
    install: await caught(() => install(file, {dataRoot: path.join(dir, 'data'), allowUnsigned: true})),
  }
}

/** Every reader gives `code` and a message that matches `advice`. */
async function assertAdvice(file: string, code: string, advice: RegExp): Promise<void> {
  const said = await everyReader(file)
  for (const [reader, {code: actual, message}] of Object.entries(said)) {
    assert.equal(actual, code, `${reader}: ${message}`)
    assert.match(message, advice, reader)
  }
}

describe('an archive made by another tool', {skip: !python && 'python3 is not installed'}, () => {
  it('with "./" names (bsdtar) is unsafe-entry everywhere, naming the cause and svc-plugin pack', async () => {
    const file = pythonZip('dot-slash.zip', [['./manifest.json', manifest], ['./runtimes/linux-x64/app', 'x']])
    await assertAdvice(file, 'unsafe-entry', /start with "\.\/", as bsdtar .* svc-plugin pack/)
  })

  it('with backslash names (older Windows archivers) is unsafe-entry everywhere, naming the cause', async () => {
    const file = pythonZip('backslash.zip', [['manifest.json', manifest], ['runtimes\\linux-x64\\app', 'x']])
    await assertAdvice(file, 'unsafe-entry', /use "\\" as the separator, as older Windows archivers .* svc-plugin pack/)
  })

  it('with ZIP64 records keeps the reader code and says ZIP64', async () => {
    const file = pythonZip('zip64.zip', [['manifest.json', manifest], ['runtimes/linux-x64/app', 'x']], {zip64: true})
    await assertAdvice(file, 'archive-malformed', /It uses ZIP64 records.* svc-plugin pack/)
  })

  it('with __MACOSX/ resource forks beside a listed files[] says where they come from', async () => {
    const digest = 'sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881'
    const listed = JSON.stringify({...JSON.parse(manifest), files: [{path: 'runtimes/linux-x64/app', size: 1, sha256: digest}]})
    const file = pythonZip('macosx.zip', [['manifest.json', listed], ['runtimes/linux-x64/app', 'x'], ['__MACOSX/._manifest.json', 'fork']])
    const report = await validateArtifact(file)
    const undeclared = report.problems.find((problem) => problem.code === 'undeclared-file')
    assert.match(undeclared?.message ?? '', /"__MACOSX\/\._manifest\.json" is present but not listed in files\[\]\. It holds __MACOSX\/ entries, the resource forks macOS Finder/)
  })

  it('zipped one level too deep (with real zip, and Finder forks beside it) is manifest-missing everywhere, naming what was found', {skip: !zip && 'zip is not installed'}, async () => {
    const source = path.join(dir, 'deep')
    await mkdir(path.join(source, 'plugin', 'runtimes', 'linux-x64'), {recursive: true})
    await mkdir(path.join(source, '__MACOSX', 'plugin'), {recursive: true})
    await writeFile(path.join(source, 'plugin', 'manifest.json'), manifest)
    await writeFile(path.join(source, 'plugin', 'runtimes', 'linux-x64', 'app'), 'x')
    await writeFile(path.join(source, '__MACOSX', 'plugin', '._manifest.json'), 'fork')
    const file = path.join(dir, 'deep.zip')
    assert.equal(spawnSync('zip', ['-q', '-r', '-X', file, 'plugin', '__MACOSX'], {cwd: source}).status, 0)
    await assertAdvice(file, 'manifest-missing', /Found "plugin\/manifest\.json": the plugin folder was zipped itself, one level too deep.* resource forks macOS Finder.* svc-plugin pack plugin/)
  })

  it('without files[] gets the no-file-digests warning at package level', async () => {
    const file = pythonZip('no-files.zip', [['manifest.json', manifest], ['runtimes/linux-x64/app', 'x']])
    const report = await validateArtifact(file)
    assert.equal(report.valid, true)
    assert.deepEqual(
      report.problems.filter((problem) => problem.code === 'no-file-digests').map(({severity, pointer, requiredBy}) => ({severity, pointer, requiredBy})),
      [{severity: 'warning', pointer: '', requiredBy: 'package'}],
    )
  })
})
