import {createCipheriv, createHash} from 'node:crypto'
import {mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {deflateRawSync} from 'node:zlib'

/** Bumped whenever the generated tree changes, so a cached tree is rebuilt. */
const treeVersion = 'bench-tree-3'

/** What the generated tree holds. */
export interface BenchTree {
  root: string
  files: number
  bytes: number
}

/** A deterministic byte source: AES-128-CTR over zeros with a fixed key (fast, reproducible). */
function stream(seed: string): (length: number) => Buffer {
  const key = createHash('sha256').update(seed).digest().subarray(0, 16)
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16))
  return (length) => cipher.update(Buffer.alloc(length))
}

const words = [
  'public', 'private', 'static', 'async', 'await', 'return', 'class', 'interface', 'namespace', 'using', 'var', 'string',
  'int', 'bool', 'Task', 'void', 'new', 'if', 'else', 'foreach', 'in', 'null', 'this', 'Plugin', 'Weather', 'Station',
  'Forecast', 'Temperature', 'Humidity', 'Request', 'Response', 'Http', 'Client', 'Logger', 'Options', 'Settings',
]

/** Source-like text: identifiers, keywords and punctuation from a seeded generator (deflates to ~25%). */
function text(seed: string, length: number): Buffer {
  const noise = stream(seed)(length)
  const parts: string[] = []
  let size = 0
  for (let i = 0; size < length; i += 1) {
    const word = words[noise[i % noise.length]! % words.length]!
    const separator = noise[(i * 7) % noise.length]! % 9 === 0 ? ';\n    ' : ' '
    parts.push(word, separator)
    size += word.length + separator.length
  }
  return Buffer.from(parts.join(''), 'utf8').subarray(0, length)
}

/** Machine-code-like bytes: random blocks mixed with repeated tables and zero runs (deflates to ~60%). */
function binary(seed: string, length: number): Buffer {
  const random = stream(seed)
  const out = Buffer.alloc(length)
  const table = random(4096)
  for (let offset = 0; offset < length; offset += 4096) {
    const kind = (offset / 4096) % 5
    const block = kind < 2 ? random(4096) : kind < 4 ? table : Buffer.alloc(4096)
    block.copy(out, offset, 0, Math.min(4096, length - offset))
  }
  return out
}

/** Already-compressed bytes (a deflate stream of text): deflate cannot shrink them further. */
function compressed(seed: string, length: number): Buffer {
  const packed = deflateRawSync(text(seed, length * 4), {level: 1})
  return Buffer.concat([packed, stream(`${seed}/pad`)(Math.max(0, length - packed.length))]).subarray(0, length)
}

/** Pure noise (encrypted or random assets). */
function random(seed: string, length: number): Buffer {
  return stream(seed)(length)
}

type Kind = 'text' | 'binary' | 'compressed' | 'random'
const makers: Record<Kind, (seed: string, length: number) => Buffer> = {text, binary, compressed, random}

/**
 * Generates (or reuses) a plugin tree of about 300 MB in about 2,000 files under `dir`: three
 * RIDs of runtime-like payload (text, machine-code-like, already compressed and random bytes),
 * shared assets and localization files, and a valid manifest.
 */
export async function ensureBenchTree(dir: string): Promise<BenchTree> {
  const root = path.join(dir, 'tree')
  const marker = path.join(dir, 'tree.version')
  const existing = await readFile(marker, 'utf8').catch(() => '')
  if (existing.startsWith(`${treeVersion} `)) {
    const [, files, bytes] = existing.trim().split(' ')
    return {root, files: Number(files), bytes: Number(bytes)}
  }
  await rm(root, {recursive: true, force: true})
  const rids = ['linux-x64', 'win-x64', 'osx-arm64']
  let files = 0
  let bytes = 0
  const put = async (name: string, data: Buffer) => {
    const file = path.join(root, name)
    await mkdir(path.dirname(file), {recursive: true})
    await writeFile(file, data)
    files += 1
    bytes += data.length
  }
  // Per RID: 600 small and medium files, one large native library.
  const small: [Kind, number][] = [['text', 24_000], ['binary', 70_000], ['compressed', 48_000], ['random', 30_000]]
  for (const rid of rids) {
    for (let i = 0; i < 600; i += 1) {
      const [kind, size] = small[i % small.length]!
      const extension = kind === 'text' ? 'json' : kind === 'binary' ? 'dll' : kind === 'compressed' ? 'png' : 'bin'
      await put(`runtimes/${rid}/lib/module-${String(i).padStart(3, '0')}.${extension}`, makers[kind](`${rid}/${i}`, size + ((i * 7919) % 9000)))
    }
    await put(`runtimes/${rid}/native/libcore.${rid.startsWith('win') ? 'dll' : 'so'}`, binary(`${rid}/core`, 40_000_000))
    await put(`runtimes/${rid}/data/model.bin`, random(`${rid}/model`, 12_000_000))
    await put(`runtimes/${rid}/data/catalog.json`, text(`${rid}/catalog`, 12_000_000))
    await put(`runtimes/${rid}/${rid.startsWith('win') ? 'WeatherStation.exe' : 'weather-station'}`, binary(`${rid}/exe`, 2_000_000))
  }
  for (let i = 0; i < 180; i += 1) await put(`assets/icons/icon-${String(i).padStart(3, '0')}.png`, compressed(`icon/${i}`, 60_000))
  for (const culture of ['', '.de', '.fr-FR', '.ja', '.pt-BR']) await put(`Localization/Strings${culture}.resx`, text(`resx${culture}`, 80_000))
  await put('assets/icon.png', compressed('icon', 4_000))
  const manifest = {
    manifestVersion: 1,
    id: 'com.example.bench-plugin',
    name: 'Bench Plugin',
    version: '1.0.0',
    description: 'A generated plugin tree for benchmarks.',
    icon: 'assets/icon.png',
    publisher: {name: 'Example Labs', id: 'com.example'},
    license: 'MIT',
    repository: 'https://example.com/bench',
    compatibility: {protocol: {minimum: 1, maximum: 3}},
    entrypoints: {
      'linux-x64': {executable: 'runtimes/linux-x64/weather-station'},
      'osx-arm64': {executable: 'runtimes/osx-arm64/weather-station'},
      'win-x64': {executable: 'runtimes/win-x64/WeatherStation.exe'},
    },
  }
  await writeFile(path.join(root, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  await writeFile(marker, `${treeVersion} ${files} ${bytes}\n`)
  return {root, files, bytes}
}

/** Bumped whenever the generated many-small-files tree changes. */
const smallTreeVersion = 'bench-small-2'
/**
 * Payload files of the many-small-files tree: with manifest.json and the four entries signing adds,
 * exactly the default entry limit.
 */
export const smallTreeFiles = 19_995

/**
 * Generates (or reuses) a plugin tree of {@link smallTreeFiles} files of 1-4 KB each (three in four
 * source-like text, one in four random bytes) in 100 folders, and a valid manifest: what
 * costs per entry, not per byte.
 */
export async function ensureSmallFilesTree(dir: string): Promise<BenchTree> {
  const root = path.join(dir, 'small-tree')
  const marker = path.join(dir, 'small-tree.version')
  const existing = await readFile(marker, 'utf8').catch(() => '')
  if (existing.startsWith(`${smallTreeVersion} `)) {
    const [, files, bytes] = existing.trim().split(' ')
    return {root, files: Number(files), bytes: Number(bytes)}
  }
  await rm(root, {recursive: true, force: true})
  let bytes = 0
  for (let folder = 0; folder < 100; folder += 1) await mkdir(path.join(root, 'src', `part-${String(folder).padStart(2, '0')}`), {recursive: true})
  for (let i = 0; i < smallTreeFiles; i += 1) {
    const size = 1024 + ((i * 7919) % 3072)
    const isText = i % 4 !== 3
    const data = isText ? text(`small/${i}`, size) : random(`small/${i}`, size)
    await writeFile(path.join(root, 'src', `part-${String(i % 100).padStart(2, '0')}`, `file-${String(i).padStart(5, '0')}.${isText ? 'cs' : 'bin'}`), data)
    bytes += data.length
  }
  const manifest = {manifestVersion: 1, id: 'com.example.many-files', name: 'Many Files', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'src/part-00/file-00000.cs'}}}
  await writeFile(path.join(root, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  await writeFile(marker, `${smallTreeVersion} ${smallTreeFiles} ${bytes}\n`)
  return {root, files: smallTreeFiles, bytes}
}

/** Writes `files` (name to bytes) and a manifest under `root`, unless `marker` already names `version`. */
async function ensureTree(root: string, marker: string, version: string, build: () => {manifest: object; files: [string, Buffer][]}): Promise<BenchTree> {
  const existing = await readFile(marker, 'utf8').catch(() => '')
  if (existing.startsWith(`${version} `)) {
    const [, files, bytes] = existing.trim().split(' ')
    return {root, files: Number(files), bytes: Number(bytes)}
  }
  await rm(root, {recursive: true, force: true})
  const {manifest, files} = build()
  let bytes = 0
  for (const [name, data] of files) {
    const file = path.join(root, name)
    await mkdir(path.dirname(file), {recursive: true})
    await writeFile(file, data)
    bytes += data.length
  }
  await writeFile(path.join(root, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  await writeFile(marker, `${version} ${files.length} ${bytes}\n`)
  return {root, files: files.length, bytes}
}

/**
 * Generates (or reuses) a plugin of about 5 MB in 40 files (one executable, libraries, text and
 * already-compressed assets): what a typical small plugin costs, where fixed costs weigh most.
 */
export function ensureSmallPlugin(dir: string): Promise<BenchTree> {
  return ensureTree(path.join(dir, 'small-plugin'), path.join(dir, 'small-plugin.version'), 'bench-small-plugin-1', () => {
    const files: [string, Buffer][] = [['bin/tool', binary('sp/exe', 1_500_000)]]
    for (let i = 0; i < 12; i += 1) files.push([`lib/module-${i}.dll`, binary(`sp/lib/${i}`, 150_000)])
    for (let i = 0; i < 20; i += 1) files.push([`content/page-${i}.json`, text(`sp/text/${i}`, 50_000)])
    for (let i = 0; i < 7; i += 1) files.push([`assets/image-${i}.png`, compressed(`sp/png/${i}`, 120_000)])
    return {manifest: {manifestVersion: 1, id: 'com.example.small-plugin', name: 'Small Plugin', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'bin/tool'}}}, files}
  })
}

/** Size of the one large entry of {@link ensureLargeEntryTree}. */
export const largeEntryBytes = 200_000_000

/** Generates (or reuses) a plugin of one 200 MB machine-code-like file: what one large entry costs. */
export function ensureLargeEntryTree(dir: string): Promise<BenchTree> {
  return ensureTree(path.join(dir, 'large-entry'), path.join(dir, 'large-entry.version'), 'bench-large-entry-1', () => ({
    manifest: {manifestVersion: 1, id: 'com.example.large-entry', name: 'Large Entry', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'bin/large'}}},
    files: [['bin/large', binary('large', largeEntryBytes)]],
  }))
}

const identifiers = [
  'station', 'forecast', 'reading', 'sensor', 'options', 'value', 'result', 'request', 'response', 'client', 'logger', 'cache',
  'handler', 'config', 'accountId', 'userName', 'timeout', 'retries', 'buffer', 'entry', 'index', 'items', 'payload', 'token',
]
const callees = ['fetchJson', 'parseDate', 'formatUnit', 'assert', 'emit', 'resolve', 'normalize', 'merge', 'clamp', 'debounce']

/**
 * A JavaScript module of exactly `length` bytes, as bundlers and npm packages ship them: functions,
 * object literals, strings, numbers, JSDoc comments with documentation links, `require` and
 * `module.exports`. Seeded, so every run writes the same bytes; no line holds a credential.
 */
export function jsModule(seed: string, length: number): Buffer {
  const noise = stream(seed)(Math.max(1024, length))
  let cursor = 0
  const pick = <T>(list: readonly T[]): T => list[noise[cursor++ % noise.length]! % list.length]!
  const number = (): number => (noise[cursor++ % noise.length]! << 8) | noise[cursor++ % noise.length]!
  const lines = ["'use strict'", `const {${pick(callees)}, ${pick(callees)}} = require('./util-${number() % 97}.js')`, '']
  let size = lines.join('\n').length
  for (let fn = 0; size < length; fn += 1) {
    const name = `${pick(identifiers)}${pick(callees).replace(/^./, (c) => c.toUpperCase())}${fn}`
    const a = pick(identifiers)
    const b = pick(identifiers)
    const block = [
      '/**',
      ` * Computes the ${a} of a ${b} (${number()} at most). See https://docs.example.com/api/${name.toLowerCase()}#${number()}`,
      ` * @param {object} ${a}`,
      ' */',
      `function ${name}(${a}, ${b} = {}) {`,
      `  const ${a}Value = ${a}.${pick(identifiers)} * ${(number() / 97).toFixed(3)} + ${number() % 1000}`,
      `  if (${b}.${pick(identifiers)} === undefined) return ${pick(callees)}(${a}Value, '${pick(identifiers)}-${number().toString(16)}')`,
      `  for (let i = 0; i < ${a}.${pick(identifiers)}.length; i += 1) ${b}.${pick(identifiers)}.push({id: i, ${pick(identifiers)}: ${a}Value, label: "${pick(identifiers)} ${number()}"})`,
      `  return {${a}: ${a}Value, ${b}, at: Date.now(), unit: '${pick(['C', 'F', 'K', 'hPa', '%'])}'}`,
      '}',
      `module.exports.${name} = ${name}`,
      '',
    ].join('\n')
    lines.push(block)
    size += block.length + 1
  }
  return Buffer.from(lines.join('\n'), 'utf8').subarray(0, length)
}

/** Bumped whenever the generated shapes below change, so a cached tree is rebuilt. */
const shapesVersion = 'bench-shapes-1'

/** Generates (or reuses) a plugin of 1,000 JavaScript modules of 50 KiB (51 MB): an Electron or Node.js plugin. */
export function ensureJsModulesTree(dir: string): Promise<BenchTree> {
  return ensureTree(path.join(dir, 'js-modules'), path.join(dir, 'js-modules.version'), shapesVersion, () => {
    const files: [string, Buffer][] = []
    for (let i = 0; i < 1000; i += 1) files.push([`lib/${['core', 'ui', 'net', 'data', 'util'][i % 5]}/module-${String(i).padStart(4, '0')}.js`, jsModule(`js/${i}`, 50 * 1024)])
    return {manifest: shapeManifest('com.example.js-modules', 'JS Modules', 'lib/core/module-0000.js'), files}
  })
}

/** Payload files of the small-text tree: with manifest.json and the four signing entries, 19,995 entries. */
export const smallTextFiles = 19_990

/** Generates (or reuses) a plugin of 19,990 text files of 512 bytes each in 200 folders: what each entry costs. */
export function ensureSmallTextTree(dir: string): Promise<BenchTree> {
  return ensureTree(path.join(dir, 'small-text'), path.join(dir, 'small-text.version'), shapesVersion, () => {
    const files: [string, Buffer][] = []
    for (let i = 0; i < smallTextFiles; i += 1) files.push([`src/part-${String(i % 200).padStart(3, '0')}/file-${String(i).padStart(5, '0')}.js`, jsModule(`text/${i}`, 512)])
    return {manifest: shapeManifest('com.example.small-text', 'Small Text', 'src/part-000/file-00000.js'), files}
  })
}

/**
 * Generates (or reuses) a mixed plugin: two native libraries of 20 MiB, 200 images (already compressed,
 * 20-120 KB) and 300 JavaScript modules (2-60 KiB).
 */
export function ensureMixedTree(dir: string): Promise<BenchTree> {
  return ensureTree(path.join(dir, 'mixed'), path.join(dir, 'mixed.version'), shapesVersion, () => {
    const files: [string, Buffer][] = [
      ['runtimes/linux-x64/native/libengine.so', binary('mixed/so', 20 * 1024 * 1024)],
      ['runtimes/win-x64/native/engine.dll', binary('mixed/dll', 20 * 1024 * 1024)],
    ]
    for (let i = 0; i < 200; i += 1) files.push([`assets/images/image-${String(i).padStart(3, '0')}.png`, compressed(`mixed/png/${i}`, 20_000 + ((i * 7919) % 100_000))])
    for (let i = 0; i < 300; i += 1) files.push([`lib/module-${String(i).padStart(3, '0')}.js`, jsModule(`mixed/js/${i}`, 2048 + ((i * 104_729) % (58 * 1024)))])
    return {manifest: shapeManifest('com.example.mixed', 'Mixed', 'lib/module-000.js'), files}
  })
}

/** A manifest that passes package-level validation, for the generated shapes. */
function shapeManifest(id: string, name: string, executable: string): object {
  return {
    manifestVersion: 1,
    id,
    name,
    version: '1.0.0',
    description: `${name}: a generated plugin for benchmarks.`,
    publisher: {name: 'Example Labs', id: 'com.example'},
    license: 'MIT',
    entrypoints: {'linux-x64': {executable}},
  }
}
