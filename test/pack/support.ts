export {rejectionOf} from '../helpers/promises.js'
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {compareEntryNames} from '../../src/archive/names.js'
import {writeArchive, type WriterEntry} from '../../src/archive/writer.js'

/** The repository root, whether the tests run from source or from dist/. */
export const repoRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir)
  return dir
})()

/** The bundled example plugin; tests copy it and never pack it in place. */
export const exampleDir = path.join(repoRoot, 'fixtures', 'example-plugin')

/** The example plugin's id. */
export const exampleId = 'com.example.weather-station'
/** The example plugin's version. */
export const exampleVersion = '1.4.2'

/** A fresh directory under the system temp folder; `cleanup()` deletes it. */
export async function scratch(prefix: string): Promise<{dir: string; cleanup: () => Promise<void>}> {
  const dir = await mkdtemp(path.join(tmpdir(), `svc-pack-${prefix}-`))
  return {dir, cleanup: () => rm(dir, {recursive: true, force: true})}
}

/** Copies the example plugin to `dest` (created) and returns `dest`. */
export async function copyExample(dest: string): Promise<string> {
  await cp(exampleDir, dest, {recursive: true})
  return dest
}

/** Writes `files` (`/`-separated path → content) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, ...name.split('/'))
    await mkdir(path.dirname(file), {recursive: true})
    await writeFile(file, content)
  }
}

/** Reads, changes and rewrites `<dir>/manifest.json` (2-space JSON, as an author would). */
export async function editManifest(dir: string, edit: (manifest: Record<string, any>) => Record<string, any> | void): Promise<void> {
  const file = path.join(dir, 'manifest.json')
  const manifest = JSON.parse(await readFile(file, 'utf8')) as Record<string, any>
  const edited = edit(manifest) ?? manifest
  await writeFile(file, `${JSON.stringify(edited, null, 2)}\n`)
}

/** Every regular file under `root`, relative and `/`-separated, sorted by UTF-8 bytes. */
export async function listFiles(root: string): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, {withFileTypes: true})) {
      const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`
      if (entry.isDirectory()) await walk(path.join(dir, entry.name), name)
      else if (entry.isFile()) found.push(name)
    }
  }
  await walk(root, '')
  return found.sort(compareEntryNames)
}

/** What pack must never change in a source tree: every entry's kind, size, mtime and mode. */
export async function snapshotTree(root: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {}
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, {withFileTypes: true})) {
      const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`
      const absolute = path.join(dir, entry.name)
      const stats = await lstat(absolute)
      snapshot[name] = `${stats.isDirectory() ? 'dir' : stats.isFile() ? 'file' : 'other'} size=${stats.isDirectory() ? '-' : stats.size} mtime=${stats.mtimeMs} mode=${stats.mode.toString(8)}`
      if (entry.isDirectory()) await walk(absolute, name)
    }
  }
  await walk(root, '')
  return snapshot
}

/** Hex SHA-256 of some bytes. */
export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** `sha256sum <file>`'s digest: an implementation independent of node:crypto. */
export function sha256sum(file: string): string {
  return execFileSync('sha256sum', [file], {encoding: 'utf8'}).split(' ')[0]!
}

/** Extracts `artifact` into `dest` with Info-ZIP `unzip`. */
export function unzipInto(artifact: string, dest: string): void {
  execFileSync('unzip', ['-q', artifact, '-d', dest])
}

/** `unzip -t`'s verdict on an artifact: its exit status and its last line. */
export function unzipTest(artifact: string): {status: number; output: string} {
  try {
    return {status: 0, output: execFileSync('unzip', ['-t', artifact], {encoding: 'utf8'})}
  } catch (error) {
    const failure = error as {status: number; stdout: string}
    return {status: failure.status, output: failure.stdout}
  }
}

/** One entry of an archive as Python's `zipfile` (and a raw read of its local header) sees it. */
export interface ZipInfoEntry {
  name: string
  dateTime: number[]
  /** Central-directory extra field, hex. */
  extra: string
  /** Length of the local header's extra field. */
  localExtraLength: number
  /** `external_attr >> 16`: the Unix mode. */
  mode: number
  method: number
  compressed: number
  size: number
  flags: number
  comment: string
}

/** An archive as Python's `zipfile` reads it. */
export interface ZipInfo {
  /** `ZipFile.testzip()`: null when every CRC checks. */
  testzip: string | null
  comment: string
  entries: ZipInfoEntry[]
}

const zipInfoScript = `
import json, struct, sys, zipfile
path = sys.argv[1]
z = zipfile.ZipFile(path)
raw = open(path, 'rb').read()
entries = []
for zi in z.infolist():
    fields = struct.unpack('<IHHHHHIIIHH', raw[zi.header_offset:zi.header_offset + 30])
    entries.append(dict(name=zi.filename, dateTime=list(zi.date_time), extra=zi.extra.hex(), localExtraLength=fields[10],
                        mode=zi.external_attr >> 16, method=zi.compress_type, compressed=zi.compress_size, size=zi.file_size,
                        flags=zi.flag_bits, comment=zi.comment.hex()))
print(json.dumps(dict(testzip=z.testzip(), comment=z.comment.hex(), entries=entries)))
`

/** Reads an archive with Python's `zipfile`, a reader independent of ours. */
export function pythonZipInfo(artifact: string): ZipInfo {
  return JSON.parse(execFileSync('python3', ['-c', zipInfoScript, artifact], {encoding: 'utf8'})) as ZipInfo
}

/** Writes an artifact holding `manifest` (an object, or raw text) and `payload`, with the archive writer. */
export async function writeArtifact(file: string, manifest: Record<string, unknown> | string, payload: Record<string, string | Uint8Array> = {}): Promise<void> {
  const text = typeof manifest === 'string' ? manifest : `${JSON.stringify(manifest, null, 2)}\n`
  const entries: WriterEntry[] = [
    {name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(text)}},
    ...Object.keys(payload)
      .sort(compareEntryNames)
      .map((name): WriterEntry => ({name, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(payload[name]!)}})),
  ]
  await writeArchive(file, entries)
}

