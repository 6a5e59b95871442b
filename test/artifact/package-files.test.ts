import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {isNeverPacked, isSystemFile} from '../../src/artifact/package-files.js'

/** The decisions as their definitions read, segment by segment: the oracle the tested functions must agree with. */
const oracle = {
  isSystemFile(relativePath: string): boolean {
    const segments = relativePath.split('/')
    const name = segments.at(-1)!.toLowerCase()
    const folders = segments.slice(0, -1).map((segment) => segment.toLowerCase())
    return ['.ds_store', 'thumbs.db', 'ehthumbs.db', 'desktop.ini', '.localized'].includes(name) || name.startsWith('._') || folders.some((folder) => ['__macosx', '.spotlight-v100', '.trashes', '.fseventsd'].includes(folder))
  },
  isNeverPacked(relativePath: string): boolean {
    const segments = relativePath.split('/')
    return relativePath === 'manifest.json' || relativePath === '.svcpluginignore' || segments.includes('.git') || segments.at(-1)!.toLowerCase().endsWith('.svcplugin')
  },
}

/** Segments that matter to the decisions, in several cases, with look-alikes and ordinary names. */
const segment = fc.oneof(
  fc.constantFrom('.DS_Store', '.ds_store', 'Thumbs.db', 'ehthumbs.db', 'desktop.ini', 'Desktop.INI', '.localized', '__MACOSX', '__macosx', '.Spotlight-V100', '.Trashes', '.fseventsd'),
  fc.constantFrom('.git', '.GIT', '.git2', 'x.git', '._x', '._', '.', 'a.svcPlugin', 'b.SVCPLUGIN', 'svcplugin', 'manifest.json', '.svcpluginignore', 'ſ.ds_ſtore', '__MACOSX2'),
  fc.string({minLength: 1, maxLength: 8}).filter((text) => !text.includes('/')),
)
const relativePath = fc.tuple(fc.array(segment, {minLength: 1, maxLength: 5}), fc.boolean()).map(([segments, folder]) => `${segments.join('/')}${folder ? '/' : ''}`)

describe('which paths of a plugin folder are packed', () => {
  it('tells operating-system files and never-packed paths as their definitions do, for files and folders at any depth', () => {
    fc.assert(
      fc.property(relativePath, (path) => {
        assert.equal(isSystemFile(path), oracle.isSystemFile(path), path)
        assert.equal(isNeverPacked(path), oracle.isNeverPacked(path), path)
      }),
      {numRuns: 2000},
    )
  })

  it('leaves out what each definition names', () => {
    assert.equal(isSystemFile('a/b/.DS_Store'), true)
    assert.equal(isSystemFile('__MACOSX/'), true)
    assert.equal(isSystemFile('a/__MACOSX/b.txt'), true)
    assert.equal(isSystemFile('a/__MACOSX'), false)
    assert.equal(isSystemFile('a/._icon.png'), true)
    assert.equal(isNeverPacked('lib/.git/config'), true)
    assert.equal(isNeverPacked('lib/.git'), true)
    assert.equal(isNeverPacked('lib/.GIT/config'), false)
    assert.equal(isNeverPacked('out/old.svcPlugin'), true)
    assert.equal(isNeverPacked('lib/manifest.json'), false)
  })
})
