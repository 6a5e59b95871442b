import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {compareDeclaredFiles, decidingFileProblem, isExemptFromFiles} from '../../src/manifest/declared-files.js'

const digest = (n: string) => `sha256:${n.repeat(64)}`
const declared = [
  {path: 'a', size: 1, sha256: digest('a')},
  {path: 'b', size: 1, sha256: digest('b')},
  {path: 'c', size: 1, sha256: digest('c')},
]
const actual = new Map([
  ['a', {size: 2, sha256: digest('a')}],
  ['b', {size: 1, sha256: digest('f')}],
  ['d', {size: 1, sha256: digest('d')}],
  ['manifest.json', {size: 1, sha256: digest('e')}],
  ['certificate.json', {size: 1, sha256: digest('e')}],
])

describe('compareDeclaredFiles: the one files[] comparison', () => {
  it('reports each changed, removed and added file with its code, in files[] order then path order', () => {
    const problems = compareDeclaredFiles(declared, actual, {exhaustive: true, signed: true})
    assert.deepEqual(problems.map((item) => [item.code, item.path, item.index]), [
      ['file-size-mismatch', 'a', 0],
      ['file-digest-mismatch', 'b', 1],
      ['file-missing', 'c', 2],
      ['undeclared-file', 'd', null],
    ])
  })

  it('treats a certificate file of an unsigned package as an undeclared file: the signing files are no hiding place', () => {
    const problems = compareDeclaredFiles(declared, actual, {exhaustive: true, signed: false})
    assert.deepEqual(
      problems.filter((item) => item.code === 'undeclared-file').map((item) => item.path),
      ['certificate.json', 'd'],
    )
  })

  it('never reports manifest.json, signed or not', () => {
    assert.equal(isExemptFromFiles('manifest.json', false), true)
    assert.equal(isExemptFromFiles('certificate.sig', true), true)
    assert.equal(isExemptFromFiles('certificate.sig', false), false)
    assert.equal(isExemptFromFiles('issuer.json', false), false)
  })

  it('reports no undeclared file when not exhaustive (a source folder)', () => {
    const problems = compareDeclaredFiles(declared, actual, {exhaustive: false, signed: false})
    assert.deepEqual(problems.map((item) => item.code), ['file-size-mismatch', 'file-digest-mismatch', 'file-missing'])
  })

  it('compares sizes alone when no digest is known', () => {
    const problems = compareDeclaredFiles([{path: 'a', size: 1, sha256: digest('a')}], new Map([['a', {size: 1}]]), {exhaustive: true, signed: false})
    assert.deepEqual(problems, [])
  })

  it('skips entries that are not well-formed, keeping the indexes of the others', () => {
    const problems = compareDeclaredFiles([null, {path: 'z', size: 1, sha256: digest('a')}], new Map(), {exhaustive: false, signed: false})
    assert.deepEqual(problems.map((item) => [item.code, item.index]), [['file-missing', 1]])
  })

  it('decides by the first code of the checklist, whatever the order of the files', () => {
    const problems = compareDeclaredFiles(declared, actual, {exhaustive: true, signed: true})
    assert.equal(decidingFileProblem(problems)?.code, 'file-missing')
    assert.equal(decidingFileProblem([]), null)
  })
})
