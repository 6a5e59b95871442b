import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {generateKeyPairSync} from 'node:crypto'
import {chmod, mkdir, open, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import type {ArchiveLimits} from '../../src/archive/types.js'
import type {Diagnostic} from '../../src/manifest/diagnostic.js'
import {PackError} from '../../src/pack/errors.js'
import {pack} from '../../src/pack/pack.js'
import {validatePath} from '../../src/validate/validate-path.js'
import {copyExample} from '../pack/support.js'

/**
 * Hostile plugin source folders, and the check that `pack` and `validate --level package` judge them alike:
 * whatever pack refuses a folder for is an error of validate on it, with the same code (and, for the
 * folder's own refusals, the same message), and a folder validate finds no error in is one pack packs.
 */

/** One hostile thing put into a plugin folder. */
export type HostileItem =
  | {kind: 'symlink'; to: 'file' | 'folder' | 'nowhere'}
  | {kind: 'fifo'}
  | {kind: 'socket'}
  | {kind: 'oversize'; over: number}
  | {kind: 'file'; name: string; content: 'text' | 'secret'}
  | {kind: 'mode'; mode: number}
  | {kind: 'signing-name'; name: string}
  | {kind: 'collision'; names: [string, string]}
  | {kind: 'environment-file'}

/** Names the entry-path policy refuses (a default-ignorable or formatting character, a device name…). */
export const badNames = [
  'CON.txt', 'a?b.txt', 'trailing.', 'trailing ', 'LONGDI~1.txt', 'report\u202etxt.exe', 'README\u034f.md', '\u3164.txt', 'READ\u200bME.md',
  'a\ufe0f.txt', 'tag\u{e0041}.txt', 'back\\slash.txt', 'bell\u0007.txt', `${'n'.repeat(201)}.txt`, `${'d/'.repeat(33)}deep.txt`, 'notes:v2.txt',
]
const goodNames = ['notes.txt', 'data/table.csv', 'lib/module.js', 'caf\u00e9/r\u00e9sum\u00e9.txt', '\u65e5\u672c\u8a9e.txt']

/** A hostile item, and whether it goes under a folder `.svcpluginignore` lists (where neither pack nor validate sees it). */
export const itemArbitrary = fc.record({
  ignored: fc.boolean(),
  item: fc.oneof(
    fc.record({kind: fc.constant('symlink' as const), to: fc.constantFrom('file' as const, 'folder' as const, 'nowhere' as const)}),
    fc.record({kind: fc.constant('fifo' as const)}),
    fc.record({kind: fc.constant('socket' as const)}),
    fc.record({kind: fc.constant('oversize' as const), over: fc.integer({min: 1, max: 1000})}),
    fc.record({kind: fc.constant('file' as const), name: fc.constantFrom(...badNames, ...goodNames), content: fc.constantFrom('text' as const, 'secret' as const)}),
    fc.record({kind: fc.constant('mode' as const), mode: fc.constantFrom(0o4755, 0o2755, 0o1644, 0o644, 0o755)}),
    fc.record({kind: fc.constant('signing-name' as const), name: fc.constantFrom('certificate.json', 'certificate.sig', 'issuer.json', 'issuer.sig')}),
    fc.record({kind: fc.constant('collision' as const), names: fc.constantFrom<[string, string]>(['Readme.md', 'README.md'], ['caf\u00e9.txt', 'cafe\u0301.txt'], ['share/a.txt', 'SHARE/b.txt'], ['X', 'x/y.txt'])}),
    fc.record({kind: fc.constant('environment-file' as const)}),
  ),
})

/** Limits small enough for a few files to break them, or the default ones. */
export const limitsArbitrary = fc.option(
  fc.record({
    maxEntries: fc.integer({min: 10, max: 30}),
    maxEntryBytes: fc.integer({min: 8_000, max: 200_000}),
    maxTotalBytes: fc.integer({min: 40_000, max: 2_000_000}),
    maxManifestBytes: fc.integer({min: 1_500, max: 20_000}),
  }),
  {nil: undefined},
)

const secretPem = generateKeyPairSync('ed25519').privateKey.export({format: 'pem', type: 'pkcs8'}).toString()

/** Writes `item` into the folder `dir` (inside a plugin), the oversize file sparse so that no disk is used. */
async function putItem(dir: string, item: HostileItem, limits: Partial<ArchiveLimits> | undefined): Promise<void> {
  await mkdir(dir, {recursive: true})
  const file = (name: string) => path.join(dir, ...name.split('/'))
  const write = async (name: string, content: string | Buffer) => {
    await mkdir(path.dirname(file(name)), {recursive: true})
    await writeFile(file(name), content)
  }
  switch (item.kind) {
    case 'symlink':
      await write('target.txt', 'target')
      return symlink(item.to === 'file' ? 'target.txt' : item.to === 'folder' ? '..' : 'missing.txt', file('link'))
    case 'fifo':
      return void execFileSync('mkfifo', [file('pipe')])
    case 'socket':
      return void execFileSync('python3', ['-c', 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', file('socket')])
    case 'oversize': {
      const handle = await open(file('big.bin'), 'w')
      await handle.truncate((limits?.maxEntryBytes ?? 512 * 1024 * 1024) + item.over)
      return handle.close()
    }
    case 'file':
      return write(item.name, item.content === 'secret' ? secretPem : 'An ordinary file.\n')
    case 'mode':
      await write('tool', '#!/bin/sh\n')
      return chmod(file('tool'), item.mode)
    case 'signing-name':
      // At the root of the plugin, where the signer writes it.
      return writeFile(path.join(dir, '..', '..', item.name), '{}')
    case 'collision':
      for (const name of item.names) await write(name, name)
      return
    case 'environment-file':
      return write('.env', 'TOKEN=1\n')
  }
}

/** The example plugin with `items` added (each in its own folder), `.svcpluginignore` listing `ignored/`. */
export async function hostileFolder(root: string, items: readonly {ignored: boolean; item: HostileItem}[], limits: Partial<ArchiveLimits> | undefined): Promise<string> {
  const source = await copyExample(root)
  await writeFile(path.join(source, '.svcpluginignore'), 'ignored/\n')
  for (const [index, {ignored, item}] of items.entries()) await putItem(path.join(source, ignored ? 'ignored' : 'items', String(index)), item, limits)
  return source
}

const folderCodes = new Set(['source-entry-rejected', 'limit-exceeded'])

/**
 * Packs `source` (at package level, with `limits`) and validates it at package level, and asserts that they
 * agree: pack's refusal is an error of validate with the same code (its report's codes for a refusal that
 * carries one; the same message for a refusal of the folder itself), and pack refuses exactly when validate
 * finds an error.
 */
export async function assertJudgedAlike(source: string, output: string, limits: Partial<ArchiveLimits> | undefined): Promise<{refusal: string | null; errors: string[]}> {
  const refusal = await pack(source, {output, level: 'package', force: true, ...(limits ? {limits} : {})}).then(
    () => null,
    (error: unknown) => error,
  )
  const report = await validatePath({directory: source}, {level: 'package', host: {rid: 'linux-x64'}, ...(limits ? {limits} : {})})
  const errors: Diagnostic[] = report.problems.filter((problem) => problem.severity === 'error')
  const codes: string[] = errors.map((error) => error.code)
  if (refusal === null) {
    assert.deepEqual(codes, [], 'pack packed what validate finds errors in')
    return {refusal: null, errors: codes}
  }
  assert.ok(refusal instanceof PackError, `pack failed outside its refusals: ${String(refusal)}`)
  if (refusal.code === 'manifest-invalid' || refusal.code === 'level-not-met') {
    for (const problem of refusal.report?.problems.filter((item) => item.severity === 'error') ?? []) assert.ok(codes.includes(problem.code), `${problem.code} of pack's ${refusal.code} is not among ${codes.join(', ')}`)
  } else {
    assert.ok(codes.includes(refusal.code), `pack's ${refusal.code} (${refusal.message}) is not among validate's errors: ${codes.join(', ')}`)
  }
  if (folderCodes.has(refusal.code)) assert.ok(errors.some((error) => error.code === refusal.code && error.message === refusal.message), `validate does not say what pack says: ${refusal.message}`)
  return {refusal: refusal.code, errors: codes}
}

/** Runs {@link assertJudgedAlike} over `runs` random hostile folders under `work`. */
export async function assertHostileFoldersJudgedAlike(work: string, runs: number): Promise<void> {
  let count = 0
  await fc.assert(
    fc.asyncProperty(fc.array(itemArbitrary, {maxLength: 5}), limitsArbitrary, async (items, limits) => {
      count += 1
      const root = path.join(work, `case-${count}`)
      try {
        const source = await hostileFolder(path.join(root, 'plugin'), items as {ignored: boolean; item: HostileItem}[], limits)
        await assertJudgedAlike(source, path.join(root, 'out.svcPlugin'), limits)
      } finally {
        await rm(root, {recursive: true, force: true})
      }
    }),
    {numRuns: runs},
  )
}
