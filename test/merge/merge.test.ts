import assert from 'node:assert/strict'
import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {promisify} from 'node:util'
import {openArchive} from '../../src/archive/reader.js'
import {OutputError} from '../../src/fs/output.js'
import {validateManifest} from '../../src/manifest/validate.js'
import {MergeError} from '../../src/merge/errors.js'
import {merge} from '../../src/merge/merge.js'
import {baseManifest, executables, loadArchive, packRids, rewriteArchive, saveArchive} from './fixtures.js'

const run = promisify(execFile)

let root: string
let win: string
let linux: string
let osx: string

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'svc-plugin-merge-test-'))
  win = await packRids(root, ['win-x64'])
  linux = await packRids(root, ['linux-x64'])
  osx = await packRids(root, ['osx-arm64'])
})
after(async () => {
  await rm(root, {recursive: true, force: true})
})

/** A fresh output path inside the test root. */
let outputs = 0
function outputPath(): string {
  return path.join(root, `out-${++outputs}`, 'merged.svcPlugin')
}

async function freshDir(): Promise<string> {
  return mkdtemp(path.join(root, 'case-'))
}

/** Asserts that `promise` rejects with a MergeError of `code` and returns it. */
async function refusal(promise: Promise<unknown>, code: string): Promise<MergeError> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}, but the merge succeeded`),
    (caught: unknown) => caught,
  )
  assert.ok(error instanceof MergeError, `expected a MergeError, got ${String(error)}`)
  assert.equal(error.code, code, error.message)
  return error
}

/** Asserts that neither the output nor any staged file beside it exists. */
async function assertNothingWritten(output: string): Promise<void> {
  const listing = await readdir(path.dirname(output)).catch(() => [])
  assert.deepEqual(listing, [], `nothing may be written beside ${output}`)
}

async function manifestOf(file: string): Promise<Record<string, any>> {
  const entries = await loadArchive(file)
  return JSON.parse(entries.find((entry) => entry.name === 'manifest.json')!.data.toString('utf8'))
}

describe('merging per-RID packages of one tree', () => {
  it('gives the same bytes as packing the whole tree at once', async () => {
    const dir = await freshDir()
    const whole = await packRids(dir, ['linux-x64', 'osx-arm64', 'win-x64'])
    const merged = await merge([osx, win, linux], {output: outputPath()})
    assert.deepEqual(await readFile(merged.path), await readFile(whole))
  })
})

describe('merging three per-RID packages', () => {
  let output: string
  let result: Awaited<ReturnType<typeof merge>>

  before(async () => {
    output = outputPath()
    result = await merge([win, linux, osx], {output})
  })

  it('reports the identity, the sorted RIDs and what it wrote', async () => {
    assert.equal(result.path, output)
    assert.equal(result.id, 'com.example.merge-demo')
    assert.equal(result.version, '2.0.0')
    assert.deepEqual(result.rids, ['linux-x64', 'osx-arm64', 'win-x64'])
    const bytes = await readFile(output)
    assert.equal(result.bytes, bytes.length)
    assert.equal(result.sha256, createHash('sha256').update(bytes).digest('hex'))
    assert.deepEqual(result.droppedSignatures, [])
  })

  it('holds the shared files once and every RID directory: 4 shared + 2 per RID + manifest.json', async () => {
    const names = (await loadArchive(output)).map((entry) => entry.name)
    assert.equal(result.entries, 4 + 3 * 2 + 1)
    assert.equal(names.length, result.entries)
    assert.equal(names[0], 'manifest.json')
    assert.equal(new Set(names).size, names.length)
    for (const executable of Object.values(executables)) assert.ok(names.includes(executable), executable)
  })

  it('declares the union of entrypoints, keyed in RID order', async () => {
    const manifest = await manifestOf(output)
    assert.deepEqual(Object.keys(manifest.entrypoints), ['linux-x64', 'osx-arm64', 'win-x64'])
    assert.deepEqual(manifest.entrypoints['win-x64'], {executable: executables['win-x64'], arguments: ['--rid', 'win-x64']})
    assert.equal(manifest.signature, undefined)
  })

  it('recomputes files[] over the merged payload, in archive order, with real sizes and digests', async () => {
    const manifest = await manifestOf(output)
    const archive = await openArchive(output)
    try {
      const digests = await archive.digestEntries()
      digests.delete('manifest.json')
      assert.deepEqual(
        manifest.files,
        [...digests].map(([name, digest]) => ({path: name, sha256: digest.sha256, size: digest.size})),
      )
      assert.equal(result.uncompressedBytes, archive.entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0))
    } finally {
      await archive.close()
    }
  })

  it('is valid at package level over its real content', async () => {
    const archive = await openArchive(output)
    try {
      const bytes = await archive.readEntry(archive.get('manifest.json')!)
      const digests = await archive.digestEntries()
      digests.delete('manifest.json')
      const report = validateManifest(bytes, {level: 'package', file: `${output}!manifest.json`, subjectKind: 'artifact', content: {kind: 'artifact', files: digests}})
      assert.deepEqual(report.problems.filter((problem) => problem.severity === 'error'), [])
      assert.equal(report.valid, true)
    } finally {
      await archive.close()
    }
  })

  it('marks every entrypoint executable 0755 and everything else 0644', async () => {
    const archive = await openArchive(output)
    try {
      const executableNames = new Set(Object.values(executables))
      for (const entry of archive.entries) {
        assert.equal(entry.mode & 0o777, executableNames.has(entry.name) ? 0o755 : 0o644, entry.name)
      }
    } finally {
      await archive.close()
    }
  })

  it('passes unzip -t', async () => {
    const {stdout} = await run('unzip', ['-t', output])
    assert.match(stdout, /No errors detected/)
  })

  it('keeps the manifest text of a packed manifest: 2-space JSON and one newline', async () => {
    const text = (await loadArchive(output))[0]!.data.toString('utf8')
    assert.equal(text, `${JSON.stringify(JSON.parse(text), null, 2)}\n`)
  })
})

describe('the order of the inputs', () => {
  it('does not change a single byte of the output', async () => {
    const first = await merge([win, linux, osx], {output: outputPath()})
    const second = await merge([osx, win, linux], {output: outputPath()})
    const third = await merge([linux, osx, win], {output: outputPath()})
    assert.equal(second.sha256, first.sha256)
    assert.equal(third.sha256, first.sha256)
    assert.deepEqual(await readFile(second.path), await readFile(first.path))
  })

  it('does not matter for an input that declares two RIDs', async () => {
    const dir = await freshDir()
    const pair = await packRids(dir, ['linux-x64', 'osx-arm64'])
    const first = await merge([pair, win], {output: outputPath()})
    const second = await merge([win, pair], {output: outputPath()})
    assert.deepEqual(first.rids, ['linux-x64', 'osx-arm64', 'win-x64'])
    assert.equal(second.sha256, first.sha256)
  })
})

function flipLastByte(data: Buffer): Buffer {
  const copy = Buffer.from(data)
  copy[copy.length - 1] = copy[copy.length - 1]! ^ 0xff
  return copy
}

describe('an input whose bytes do not match its own files[]', () => {
  it('is refused with hash-mismatch when one payload byte changed (manifest kept)', async () => {
    const dir = await freshDir()
    const tampered = await packRids(dir, ['linux-x64'])
    await rewriteArchive(tampered, (entries) => entries.map((entry) => (entry.name === 'runtimes/linux-x64/native.bin' ? {...entry, data: flipLastByte(entry.data)} : entry)))
    const output = outputPath()
    const error = await refusal(merge([win, tampered], {output}), 'hash-mismatch')
    assert.equal(error.details.input, tampered)
    assert.equal(error.details.path, 'runtimes/linux-x64/native.bin')
    assert.equal(error.details.reason, 'file-digest-mismatch')
    await assertNothingWritten(output)
  })

  it('is refused with hash-mismatch when a shared file changed in the input whose copy is written', async () => {
    const dir = await freshDir()
    // linux-x64 sorts before win-x64: its README.md is the copy the merged archive would hold.
    const tampered = await packRids(dir, ['linux-x64'])
    await rewriteArchive(tampered, (entries) => entries.map((entry) => (entry.name === 'README.md' ? {...entry, data: Buffer.from('# Merge Demo\n\nShared by every RIX.\n')} : entry)))
    const output = outputPath()
    const error = await refusal(merge([win, tampered], {output}), 'hash-mismatch')
    assert.equal(error.details.input, tampered)
    assert.equal(error.details.path, 'README.md')
    await assertNothingWritten(output)
  })

  it('is refused with hash-mismatch when a shared file changed in an input whose copy is not written', async () => {
    const dir = await freshDir()
    const tampered = await packRids(dir, ['win-x64'])
    await rewriteArchive(tampered, (entries) => entries.map((entry) => (entry.name === 'README.md' ? {...entry, data: Buffer.from('# Merge Demo\n\nShared by every RIX.\n')} : entry)))
    const output = outputPath()
    const error = await refusal(merge([tampered, linux], {output}), 'hash-mismatch')
    assert.equal(error.details.input, tampered)
    assert.equal(error.details.path, 'README.md')
    assert.equal(error.details.reason, 'file-digest-mismatch')
    await assertNothingWritten(output)
  })

  it('is refused with hash-mismatch (undeclared-file) when it holds a file files[] does not list', async () => {
    const dir = await freshDir()
    const tampered = await packRids(dir, ['linux-x64'])
    await rewriteArchive(tampered, (entries) => [...entries, {name: 'runtimes/linux-x64/extra.so', mode: 0o644, store: false, data: Buffer.from('not declared')}])
    const output = outputPath()
    const error = await refusal(merge([tampered, win], {output}), 'hash-mismatch')
    assert.equal(error.details.reason, 'undeclared-file')
    assert.equal(error.details.path, 'runtimes/linux-x64/extra.so')
    await assertNothingWritten(output)
  })

  it('is refused with hash-mismatch (file-missing) when a declared file is absent', async () => {
    const dir = await freshDir()
    const tampered = await packRids(dir, ['linux-x64'])
    await rewriteArchive(tampered, (entries) => entries.filter((entry) => entry.name !== 'assets/config.json'))
    const output = outputPath()
    const error = await refusal(merge([tampered, win], {output}), 'hash-mismatch')
    assert.equal(error.details.reason, 'file-missing')
    assert.equal(error.details.path, 'assets/config.json')
    await assertNothingWritten(output)
  })
})

describe('inputs of different plugins or versions', () => {
  it('are refused with identity-mismatch for another version', async () => {
    const dir = await freshDir()
    const other = await packRids(dir, ['linux-x64'], {manifest: (manifest) => ({...manifest, version: '2.0.1'})})
    const output = outputPath()
    const error = await refusal(merge([win, other], {output}), 'identity-mismatch')
    assert.equal(error.details.field, 'version')
    await assertNothingWritten(output)
  })

  it('are refused with identity-mismatch for another id', async () => {
    const dir = await freshDir()
    const other = await packRids(dir, ['linux-x64'], {manifest: (manifest) => ({...manifest, id: 'com.example.other'})})
    const error = await refusal(merge([win, other], {output: outputPath()}), 'identity-mismatch')
    assert.equal(error.details.field, 'id')
  })
})

describe('manifests that differ outside entrypoints, files and signature', () => {
  it('are refused with manifest-mismatch naming the first differing pointer', async () => {
    const dir = await freshDir()
    const other = await packRids(dir, ['linux-x64'], {manifest: (manifest) => ({...manifest, permissions: ['host:variables', 'events:publish']})})
    const output = outputPath()
    const error = await refusal(merge([win, other], {output}), 'manifest-mismatch')
    assert.equal(error.details.pointer, '/permissions/1')
    await assertNothingWritten(output)
  })

  it('are refused when a property exists in only one of them', async () => {
    const dir = await freshDir()
    const other = await packRids(dir, ['linux-x64'], {manifest: (manifest) => ({...manifest, homepage: 'https://example.com/merge'})})
    const error = await refusal(merge([win, other], {output: outputPath()}), 'manifest-mismatch')
    assert.equal(error.details.pointer, '/homepage')
  })

  it('merge when only the property order differs', async () => {
    const dir = await freshDir()
    const reordered = await packRids(dir, ['linux-x64'], {
      manifest: (manifest) => Object.fromEntries(Object.entries({...manifest, health: {intervalSeconds: 30, path: '/_svc/health'}}).reverse()),
    })
    const result = await merge([win, reordered], {output: outputPath()})
    assert.deepEqual(result.rids, ['linux-x64', 'win-x64'])
    // The output is built on the first input in RID order (linux-x64), in its property order.
    assert.deepEqual(Object.keys(await manifestOf(result.path)), Object.keys(await manifestOf(reordered)))
    const swapped = await merge([reordered, win], {output: outputPath()})
    assert.equal(swapped.sha256, result.sha256)
  })
})

describe('a RID declared by two inputs', () => {
  it('is refused with duplicate-rid', async () => {
    const dir = await freshDir()
    const again = await packRids(dir, ['win-x64', 'linux-x64'])
    const output = outputPath()
    const error = await refusal(merge([win, again], {output}), 'duplicate-rid')
    assert.equal(error.details.rid, 'win-x64')
    await assertNothingWritten(output)
  })

  it('is refused with duplicate-rid when two inputs spell one RID in different case', async () => {
    const dir = await freshDir()
    const shouting = await packRids(dir, ['linux-x64'], {manifest: (manifest) => ({...manifest, entrypoints: {'WIN-X64': {executable: executables['linux-x64']}}})})
    const error = await refusal(merge([win, shouting], {output: outputPath()}), 'duplicate-rid')
    assert.deepEqual(error.details.inputs, [shouting, win])
  })

  it('is refused with duplicate-rid when one file is given twice', async () => {
    await refusal(merge([win, win], {output: outputPath()}), 'duplicate-rid')
  })
})

describe('a path two inputs hold with different bytes', () => {
  it('is refused with file-conflict for a shared file', async () => {
    const dir = await freshDir()
    const other = await packRids(dir, ['linux-x64'], {files: {'README.md': '# Merge Demo\n\nLinux edition.\n'}})
    const output = outputPath()
    const error = await refusal(merge([win, other], {output}), 'file-conflict')
    assert.equal(error.details.path, 'README.md')
    assert.equal(error.details.reason, 'different-bytes')
    await assertNothingWritten(output)
  })

  it('is refused with file-conflict inside a RID directory another input provides', async () => {
    const dir = await freshDir()
    const stale = await packRids(dir, ['linux-x64'], {files: {'runtimes/win-x64/stale.dll': 'left over from another build'}})
    const output = outputPath()
    const error = await refusal(merge([win, stale], {output}), 'file-conflict')
    assert.equal(error.details.path, 'runtimes/win-x64/stale.dll')
    assert.equal(error.details.reason, 'foreign-rid-directory')
    assert.equal(error.details.rid, 'win-x64')
    await assertNothingWritten(output)
  })

  it('is refused with file-conflict when both inputs write one path inside a RID directory differently', async () => {
    const dir = await freshDir()
    const clash = await packRids(dir, ['linux-x64'], {files: {'runtimes/win-x64/native.bin': 'not the win-x64 library'}})
    const error = await refusal(merge([win, clash], {output: outputPath()}), 'file-conflict')
    assert.equal(error.details.path, 'runtimes/win-x64/native.bin')
    assert.equal(error.details.reason, 'different-bytes')
  })

  it('is refused with file-conflict when two inputs spell one path in different case', async () => {
    const dir = await freshDir()
    const other = await packRids(dir, ['linux-x64'], {files: {'assets/Extra.txt': 'x'}})
    const again = await packRids(dir, ['osx-arm64'], {files: {'assets/extra.txt': 'x'}})
    const error = await refusal(merge([other, again], {output: outputPath()}), 'file-conflict')
    assert.equal(error.details.reason, 'case-collision')
  })

  it('is refused with file-conflict when a path is a file in one input and a directory in another', async () => {
    const dir = await freshDir()
    const other = await packRids(dir, ['linux-x64'], {files: {'assets/theme': 'a file'}})
    const again = await packRids(dir, ['osx-arm64'], {files: {'assets/theme/dark.css': 'a directory'}})
    const error = await refusal(merge([other, again], {output: outputPath()}), 'file-conflict')
    assert.equal(error.details.reason, 'file-and-directory')
  })

  it('is merged once when the copies are identical, even inside a RID directory', async () => {
    const dir = await freshDir()
    const winBytes = (await loadArchive(win)).find((entry) => entry.name === 'runtimes/win-x64/native.bin')!.data
    const same = await packRids(dir, ['linux-x64'], {files: {'runtimes/win-x64/native.bin': winBytes}})
    const result = await merge([win, same], {output: outputPath()})
    assert.equal(result.entries, 4 + 2 * 2 + 1)
  })
})

describe('the output file', () => {
  it('is refused with output-exists and left untouched when it exists', async () => {
    const output = outputPath()
    await mkdirFor(output)
    await writeFile(output, 'keep me')
    const error = await merge([win, linux], {output}).then(() => assert.fail('merged'), (caught: unknown) => caught)
    assert.ok(error instanceof OutputError, String(error))
    assert.equal(error.code, 'output-exists')
    assert.equal(await readFile(output, 'utf8'), 'keep me')
  })

  it('is replaced with force', async () => {
    const output = outputPath()
    await mkdirFor(output)
    await writeFile(output, 'replace me')
    const result = await merge([win, linux], {output, force: true})
    assert.equal((await readFile(output)).length, result.bytes)
  })
})

async function mkdirFor(file: string): Promise<void> {
  await mkdir(path.dirname(file), {recursive: true})
}

describe('a merged artifact over the limits', () => {
  it('is refused with the writer\'s limit-exceeded before anything is written', async () => {
    // Each input holds 7 entries; the union would hold 9.
    const output = outputPath()
    const error = await merge([win, linux], {output, limits: {maxEntries: 8}}).then(
      () => assert.fail('expected limit-exceeded'),
      (caught: unknown) => caught as {code?: string; details?: {reason?: string}},
    )
    assert.equal(error.code, 'limit-exceeded')
    assert.equal(error.details?.reason, 'too-many-entries')
    await assertNothingWritten(output)
  })
})

describe('fewer than two inputs', () => {
  it('is refused with merge-needs-two for one input', async () => {
    const output = outputPath()
    const error = await refusal(merge([win], {output}), 'merge-needs-two')
    assert.deepEqual(error.details.inputs, [win])
    await assertNothingWritten(output)
  })

  it('is refused with merge-needs-two for none', async () => {
    await refusal(merge([], {output: outputPath()}), 'merge-needs-two')
  })
})

describe('a signed input', () => {
  it('loses its signature and signing files, and the merge reports it', async () => {
    const dir = await freshDir()
    const signed = await packRids(dir, ['linux-x64'])
    await rewriteArchive(signed, (entries) =>
      entries.flatMap((entry) => {
        if (entry.name !== 'manifest.json') return [entry]
        const text = entry.data.toString('utf8').trimEnd().slice(0, -1)
        const trailer = `,"signature":{"algorithm":"ed25519","keyId":"cert_${'0'.repeat(32)}","value":"${Buffer.alloc(64, 7).toString('base64')}","signedAt":"2024-05-01T12:00:00Z"}}\n`
        return [
          {...entry, data: Buffer.from(text + trailer)},
          {name: 'certificate.json', mode: 0o644, store: false, data: Buffer.from('{"schemaVersion":1}\n')},
          {name: 'certificate.sig', mode: 0o644, store: false, data: Buffer.from('c2ln\n')},
        ]
      }),
    )
    const result = await merge([win, signed], {output: outputPath()})
    assert.deepEqual(result.droppedSignatures, [signed])
    const entries = await loadArchive(result.path)
    assert.ok(!entries.some((entry) => entry.name.startsWith('certificate.')))
    assert.equal((await manifestOf(result.path)).signature, undefined)
  })
})

describe('an input that is not a packed plugin', () => {
  it('without manifest.json is refused with manifest-invalid', async () => {
    const dir = await freshDir()
    const bare = path.join(dir, 'bare.svcPlugin')
    await saveArchive(bare, [{name: 'README.md', mode: 0o644, store: false, data: Buffer.from('hello')}])
    const error = await refusal(merge([win, bare], {output: outputPath()}), 'manifest-invalid')
    assert.equal(error.details.input, bare)
  })

  it('whose RIDs would share one directory is refused with manifest-invalid (entrypoint-layout-invalid)', async () => {
    const dir = await freshDir()
    const shared = await packRids(dir, ['linux-x64'], {
      manifest: (manifest) => ({...manifest, entrypoints: {'linux-x64': {executable: 'runtimes/win-x64/merge-demo'}}}),
      files: {'runtimes/win-x64/merge-demo': 'linux build'},
    })
    const error = await refusal(merge([win, shared], {output: outputPath()}), 'manifest-invalid')
    assert.ok((error.details.codes as string[]).includes('entrypoint-layout-invalid'), JSON.stringify(error.details))
    assert.ok(error.report)
  })
})

describe('unknown members survive a merge intact: no key is special', () => {
  it('keeps a top-level "__proto__" member of the inputs in the merged manifest', async () => {
    const dir = await freshDir()
    const textFor = (rid: string) => {
      const manifest = {...baseManifest(), entrypoints: {[rid]: {executable: executables[rid], arguments: ['--rid', rid]}}}
      // JSON.stringify of an object cannot write a "__proto__" member; the text is spliced instead.
      return `${JSON.stringify(manifest, null, 2).slice(0, -2)},\n  "__proto__": {"polluted": true}\n}\n`
    }
    const windows = await packRids(dir, ['win-x64'], {manifestText: textFor('win-x64')})
    const linuxOnly = await packRids(dir, ['linux-x64'], {manifestText: textFor('linux-x64')})
    const result = await merge([windows, linuxOnly], {output: path.join(dir, 'merged.svcPlugin')})
    const entries = await loadArchive(result.path)
    const text = entries.find((entry) => entry.name === 'manifest.json')!.data.toString('utf8')
    assert.match(text, /"__proto__": \{\n {4}"polluted": true\n {2}\}/)
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
  })
})
