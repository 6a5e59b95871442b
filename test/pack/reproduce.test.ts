import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {chmod, cp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {pack} from '../../src/pack/pack.js'
import {reproduce} from '../../src/pack/reproduce.js'
import {signArtifact} from '../../src/signing/sign-artifact.js'
import {createPki, sha256Of, testNow} from '../signing/pki.js'
import {copyExample, editManifest, listFiles, scratch, unzipInto} from './support.js'

/** Extracts `artifact` and zips it again with Info-ZIP at `level` (manifest.json first), after `change` of the extracted tree. */
function rezip(artifact: string, folder: string, output: string, level: number, change: (dir: string) => void = () => undefined): string {
  unzipInto(artifact, folder)
  change(folder)
  execFileSync('zip', ['-X', '-D', '-q', `-${level}`, output, 'manifest.json'], {cwd: folder})
  execFileSync('zip', ['-X', '-D', '-q', '-r', `-${level}`, output, '.', '-x', 'manifest.json'], {cwd: folder})
  return output
}

/** Python: zips the files named after the folder and the output (manifest.json first) with every entry deflated, modes kept. */
const deflateEveryEntry = `
import os, sys, zipfile
folder, output, names = sys.argv[1], sys.argv[2], sys.argv[3:]
names = ['manifest.json'] + [name for name in names if name != 'manifest.json']
with zipfile.ZipFile(output, 'w') as archive:
    for name in names:
        info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.create_system = 3
        info.external_attr = os.stat(os.path.join(folder, name)).st_mode << 16
        archive.writestr(info, open(os.path.join(folder, name), 'rb').read())
`

describe('reproduce: a rebuild compared with an artifact', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let source: string
  let packed: string
  let signed: string
  let counter = 0
  /** A fresh copy of the source tree. */
  const copy = async (): Promise<string> => {
    const dir = path.join(work.dir, `tree${counter++}`)
    await cp(source, dir, {recursive: true})
    return dir
  }

  before(async () => {
    work = await scratch('reproduce')
    source = await copyExample(path.join(work.dir, 'source'))
    packed = (await pack(source, {output: path.join(work.dir, 'packed.svcPlugin')})).path
    const pki = createPki()
    signed = (await signArtifact({privateKey: pki.signer.privateKey, certificate: pki.certificate, now: testNow, artifact: packed, output: path.join(work.dir, 'signed.svcPlugin')})).output
  })
  after(async () => {
    await work.cleanup()
  })

  it('reproduces the packed and the signed artifact from their tree, writing nothing', async () => {
    const before = await readdir(work.dir)
    const sourceFiles = await listFiles(source)
    assert.deepEqual(await reproduce(source, packed), {reproduced: true, artifact: packed, source, signed: false, difference: null})
    assert.deepEqual(await reproduce(source, signed), {reproduced: true, artifact: signed, source, signed: true, difference: null})
    assert.deepEqual(await readdir(work.dir), before)
    assert.deepEqual(await listFiles(source), sourceFiles)
  })

  it('reproduces an artifact Info-ZIP deflated again at levels 1 and 9: compressed bytes are not compared', async () => {
    for (const level of [1, 9]) {
      const rezipped = rezip(packed, path.join(work.dir, `level${level}`), path.join(work.dir, `level${level}.svcPlugin`), level)
      assert.notDeepEqual(await readFile(rezipped), await readFile(packed))
      assert.deepEqual((await reproduce(source, rezipped)).difference, null)
    }
  })

  it('names the entry whose content differs, with both digests, for a changed byte', async () => {
    const tree = await copy()
    const file = path.join(tree, 'README.md')
    const bytes = await readFile(file)
    const original = sha256Of(bytes)
    bytes[10] = bytes[10]! ^ 0x01
    await writeFile(file, bytes)
    for (const artifact of [packed, signed]) {
      const result = await reproduce(tree, artifact)
      assert.equal(result.reproduced, false)
      assert.deepEqual(result.difference, {kind: 'content', entry: 'README.md', expected: sha256Of(bytes), actual: original})
    }
  })

  it('names a file added to the tree as an entry the artifact misses', async () => {
    const tree = await copy()
    await writeFile(path.join(tree, 'assets', 'added.txt'), 'new\n')
    assert.deepEqual((await reproduce(tree, packed)).difference, {kind: 'missing-entry', entry: 'assets/added.txt'})
  })

  it('names a file removed from the tree as an entry the artifact has in excess', async () => {
    const tree = await copy()
    await rm(path.join(tree, 'README.md'))
    assert.deepEqual((await reproduce(tree, signed)).difference, {kind: 'extra-entry', entry: 'README.md'})
  })

  it('names an entry whose mode the artifact changed (chmod +x, zipped again)', async () => {
    const rezipped = rezip(packed, path.join(work.dir, 'mode'), path.join(work.dir, 'mode.svcPlugin'), 6, (dir) => execFileSync('chmod', ['+x', path.join(dir, 'README.md')]))
    assert.deepEqual((await reproduce(source, rezipped)).difference, {kind: 'mode', entry: 'README.md', expected: '100644', actual: '100755'})
  })

  it('names an empty entry deflated where pack stores it (Python zipfile deflates every entry)', async () => {
    const tree = await copy()
    await writeFile(path.join(tree, 'empty.txt'), '')
    const artifact = (await pack(tree, {output: path.join(work.dir, 'empty.svcPlugin')})).path
    const extracted = path.join(work.dir, 'empty-extracted')
    unzipInto(artifact, extracted)
    const deflated = path.join(work.dir, 'empty-deflated.svcPlugin')
    execFileSync('python3', ['-c', deflateEveryEntry, extracted, deflated, ...(await listFiles(extracted))])
    assert.deepEqual((await reproduce(tree, deflated)).difference, {kind: 'method', entry: 'empty.txt', expected: 'stored', actual: 'deflated'})
  })

  it('ignores the mode of a file in the tree, as pack does (its modes come from the entrypoints)', async () => {
    const tree = await copy()
    await chmod(path.join(tree, 'README.md'), 0o755)
    assert.equal((await reproduce(tree, packed)).reproduced, true)
  })

  it('names a changed manifest member by its JSON pointer, with both values', async () => {
    const tree = await copy()
    await editManifest(tree, (manifest) => {
      manifest.description = 'Another description.'
    })
    const original = JSON.parse(await readFile(path.join(source, 'manifest.json'), 'utf8')).description
    for (const artifact of [packed, signed]) {
      assert.deepEqual((await reproduce(tree, artifact)).difference, {kind: 'manifest', pointer: '/description', expected: 'Another description.', actual: original})
    }
  })

  it('names a manifest member only one side has, with the value of that side', async () => {
    const tree = await copy()
    await editManifest(tree, (manifest) => {
      delete manifest.homepage
    })
    assert.deepEqual((await reproduce(tree, packed)).difference, {kind: 'manifest', pointer: '/homepage', actual: 'https://example.com/weather-station'})
  })

  it('names the signing files of an unsigned artifact as entries in excess', async () => {
    const rezipped = rezip(signed, path.join(work.dir, 'unsigned'), path.join(work.dir, 'unsigned.svcPlugin'), 6, (dir) => {
      // The packed manifest back, the signing files kept: no longer a signed artifact.
      execFileSync('unzip', ['-o', '-q', packed, 'manifest.json', '-d', dir])
    })
    assert.deepEqual((await reproduce(source, rezipped)).difference, {kind: 'extra-entry', entry: 'certificate.json'})
  })

  it('leaves the artifact out of the tree when it lies inside it, as pack leaves out its output', async () => {
    const tree = await copy()
    const inside = (await pack(tree, {output: path.join(tree, 'dist', 'plugin.svcPlugin')})).path
    assert.deepEqual((await reproduce(tree, inside)).difference, null)
  })
})
