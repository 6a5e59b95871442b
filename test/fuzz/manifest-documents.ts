/**
 * Generators of manifest documents: arbitrary JSON values, structural mutations of real manifests (the
 * example plugin's and the diagnostic corpus's) and raw byte mutations of their text. A document is built
 * as a tree that can say what JSON.stringify cannot: duplicate keys, own `__proto__` members, number
 * literals that overflow a double, nesting past any limit.
 */
import fc from 'fast-check'

/** JSON text put into a document verbatim: `1e400`, `[[[...]]]`. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object as a list of members: the order is kept and a key may repeat. */
export class JsonObject {
  constructor(readonly members: Array<[string, JsonNode]>) {}
}

/** A node of a document tree. */
export type JsonNode = null | boolean | number | string | JsonNode[] | JsonObject | RawJson

/** The tree of a parsed JSON value (`__proto__` members included, since JSON.parse makes them own members). */
export function treeOf(value: unknown): JsonNode {
  if (Array.isArray(value)) return value.map(treeOf)
  if (typeof value === 'object' && value !== null) return new JsonObject(Object.keys(value).map((key) => [key, treeOf((value as Record<string, unknown>)[key])]))
  if (typeof value === 'number' && !Number.isFinite(value)) return null
  return value as JsonNode
}

/** JSON text of a tree, compact or indented. */
export function renderTree(node: JsonNode, indent: number, depth = 0): string {
  if (node instanceof RawJson) return node.text
  if (node instanceof JsonObject) {
    if (node.members.length === 0) return '{}'
    const pad = indent === 0 ? '' : `\n${' '.repeat(indent * (depth + 1))}`
    const close = indent === 0 ? '' : `\n${' '.repeat(indent * depth)}`
    return `{${node.members.map(([key, value]) => `${pad}${JSON.stringify(key)}:${indent === 0 ? '' : ' '}${renderTree(value, indent, depth + 1)}`).join(',')}${close}}`
  }
  if (Array.isArray(node)) {
    if (node.length === 0) return '[]'
    const pad = indent === 0 ? '' : `\n${' '.repeat(indent * (depth + 1))}`
    const close = indent === 0 ? '' : `\n${' '.repeat(indent * depth)}`
    return `[${node.map((item) => `${pad}${renderTree(item, indent, depth + 1)}`).join(',')}${close}]`
  }
  if (typeof node === 'number' && !Number.isFinite(node)) return 'null'
  return JSON.stringify(node)
}

function cloneTree(node: JsonNode): JsonNode {
  if (node instanceof JsonObject) return new JsonObject(node.members.map(([key, value]) => [key, cloneTree(value)]))
  if (Array.isArray(node)) return node.map(cloneTree)
  return node
}

// ---------------------------------------------------------------------------------------------
// Values

/** Keys that name members of Object.prototype or have a meaning to JSON tooling. */
export const hostileKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'valueOf',
  'toString',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
  'toJSON',
  'then',
  'length',
  '0',
  '$ref',
  '$schema',
  '$id',
] as const

/** Every member name a manifest uses somewhere: a mutation that adds one reaches a rule. */
const manifestKeys = [
  'manifestVersion', 'id', 'name', 'version', 'description', 'icon', 'publisher', 'license', 'repository', 'homepage', 'compatibility',
  'entrypoints', 'shutdown', 'health', 'permissions', 'languages', 'dependencies', 'conflicts', 'iconPacks', 'files', 'signature',
  'email', 'url', 'sdk', 'protocol', 'svc', 'minimum', 'maximum', 'executable', 'arguments', 'runtime', 'kind', 'dotnetVersion',
  'versionRange', 'optional', 'path', 'sha256', 'size', 'algorithm', 'keyId', 'value', 'signedAt', 'gracefulTimeoutSeconds',
  'intervalSeconds', 'timeoutSeconds', 'unhealthyThreshold', 'linux-x64', 'win-x64', 'osx-arm64', 'any', 'ID', 'Version',
] as const

/** Strings that trip Unicode handling: controls, lone surrogates, direction overrides, case-mapping changes, escapes of the output formats. */
export const oddStrings = [
  '', ' ', '\u0000', '\u0007', '\u001b[31mred\u001b[0m', '\u007f', '\u0085', '\u00a0', '\u00ad', '\u200b', '\u200d', '\u200e', '\u202e', '\u2028', '\u2029',
  '\ufeff', '\ufffd', '\uffff', '\ud800', '\udc00', 'a\ud800b', '\udbff\udfff', '\u{10ffff}', 'e\u0301', '\u00e9', '\u01c5', '\u0130', '\u00df', '\ufb03',
  '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}', '\uff21', '%', '%0A', '%25', '::error::x', '\r\n', '\r', '\n', '\t', '"', '\\', '`', '${x}', '<script>', '../',
  '/', '~', '~1', '~0', 'C:\\x', 'CON', 'sha256:', 'cert_', 'root_', 'com.example', 'com.example.weather-station', '1.4.2', '>=1.0.0', 'en', 'net:outbound',
]

/** Number literals a double cannot hold, or that JSON spells unusually. */
const rawNumbers = ['1e400', '-1e400', '1e-400', `1${'0'.repeat(400)}`, `0.${'0'.repeat(400)}1`, '-0', '1E+2', '123456789012345678901234567890', '9007199254740993', '0.1e1', '-0.0']
const numbers = [0, 1, -1, 0.5, 2, 3, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, 1e-7, 65535, 65536, 1000, 1001]

const scalarArb: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constantFrom<JsonNode>(null, true, false),
  fc.constantFrom(...numbers),
  fc.constantFrom(...rawNumbers).map((text) => new RawJson(text)),
  fc.constantFrom(...oddStrings),
  fc.string({unit: 'binary', maxLength: 20}),
  fc.integer(),
  fc.double({noNaN: true, noDefaultInfinity: true}),
)

/** A long string, from a few KiB to 1 MiB, of one repeated piece. */
const longStringArb: fc.Arbitrary<JsonNode> = fc
  .record({piece: fc.constantFrom('a', '\u00e9', '\u{1f600}', '\ud800', '\u0000', 'net:outbound,', '../', '%0A'), count: fc.oneof({weight: 19, arbitrary: fc.constantFrom(256, 4097, 65536)}, {weight: 1, arbitrary: fc.constant(1 << 20)})})
  .map(({piece, count}) => piece.repeat(Math.ceil(count / piece.length)))

/** Arrays or objects nested to a depth around the reader's limit. */
const deepArb: fc.Arbitrary<JsonNode> = fc
  .record({depth: fc.constantFrom(10, 100, 998, 999, 1000, 1001, 5000), open: fc.constantFrom('[', '{"a":'), inner: fc.constantFrom('1', '[]', '{}', '"x"')})
  .map(({depth, open, inner}) => new RawJson(`${open.repeat(depth)}${inner}${(open === '[' ? ']' : '}').repeat(depth)}`))

const keyArb: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...hostileKeys), fc.constantFrom(...manifestKeys), fc.constantFrom(...oddStrings), fc.string({maxLength: 12}))

/** An object whose members are hostile keys (and whose values may be anything small). */
const hostileObjectArb: fc.Arbitrary<JsonNode> = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...hostileKeys), keyArb), fc.oneof(scalarArb, fc.constant<JsonNode>(new JsonObject([])), fc.constant<JsonNode>([]))), {minLength: 1, maxLength: 4})
  .map((members) => new JsonObject(members))

/**
 * An array holding the same item more than once, of every type: scalars, arrays, objects with hostile
 * members (`valueOf`, `toString`), objects equal up to member order. `uniqueItems` compares them all.
 */
export const duplicatesArb: fc.Arbitrary<JsonNode> = fc
  .record({
    item: fc.oneof({weight: 2, arbitrary: scalarArb}, {weight: 3, arbitrary: hostileObjectArb}, {weight: 1, arbitrary: fc.array(scalarArb, {maxLength: 3})}),
    other: fc.oneof(scalarArb, hostileObjectArb),
    copies: fc.integer({min: 2, max: 4}),
    shape: fc.constantFrom('adjacent', 'interleaved', 'reordered-members'),
  })
  .map(({item, other, copies, shape}) => {
    if (shape === 'reordered-members' && item instanceof JsonObject) return [item, new JsonObject([...item.members].reverse())]
    const items = Array.from({length: copies}, () => cloneTree(item))
    return shape === 'interleaved' ? [items[0]!, other, ...items.slice(1)] : items
  })

const smallJsonArb: fc.Arbitrary<JsonNode> = fc.jsonValue({maxDepth: 3}).map(treeOf)

/** Any value a mutation puts into a document. */
export const valueArb: fc.Arbitrary<JsonNode> = fc.oneof(
  {weight: 4, arbitrary: scalarArb},
  {weight: 1, arbitrary: longStringArb},
  {weight: 1, arbitrary: deepArb},
  {weight: 2, arbitrary: hostileObjectArb},
  {weight: 3, arbitrary: duplicatesArb},
  {weight: 2, arbitrary: smallJsonArb},
  {weight: 1, arbitrary: fc.constantFrom<JsonNode>([], new JsonObject([]))},
)

// ---------------------------------------------------------------------------------------------
// Structural mutations

/** Paths where the manifest's rules look: a mutation there reaches them rather than only the schema. */
const fieldPaths: ReadonlyArray<ReadonlyArray<string | number>> = [
  ['languages'], ['permissions'], ['files'], ['dependencies'], ['conflicts'], ['iconPacks'], ['entrypoints'], ['entrypoints', 'linux-x64'],
  ['entrypoints', 'linux-x64', 'arguments'], ['entrypoints', 'win-x64', 'executable'], ['entrypoints', 'win-x64', 'runtime'], ['publisher'],
  ['publisher', 'id'], ['publisher', 'name'], ['compatibility'], ['compatibility', 'protocol'], ['compatibility', 'protocol', 'minimum'],
  ['compatibility', 'svc'], ['compatibility', 'sdk'], ['signature'], ['signature', 'value'], ['files', 0], ['files', 0, 'path'], ['files', 0, 'size'],
  ['health'], ['health', 'intervalSeconds'], ['shutdown'], ['icon'], ['id'], ['version'], ['name'], ['manifestVersion'], ['description'],
  ['dependencies', 0], ['dependencies', 0, 'versionRange'], ['languages', 0], ['permissions', 0],
]

/** One structural mutation; `at` picks a node among the document's nodes (modulo their count). */
export type TreeMutation =
  | {op: 'replace'; at: number; value: JsonNode}
  | {op: 'set-member'; at: number; key: string; value: JsonNode}
  | {op: 'repeat-member'; at: number; member: number; value: JsonNode}
  | {op: 'delete'; at: number}
  | {op: 'duplicates'; at: number; value: JsonNode}
  | {op: 'set-path'; path: ReadonlyArray<string | number>; value: JsonNode}

export const treeMutationArb: fc.Arbitrary<TreeMutation> = fc.oneof(
  fc.record({op: fc.constant('replace' as const), at: fc.nat(), value: valueArb}),
  fc.record({op: fc.constant('set-member' as const), at: fc.nat(), key: keyArb, value: valueArb}),
  fc.record({op: fc.constant('repeat-member' as const), at: fc.nat(), member: fc.nat(), value: valueArb}),
  fc.record({op: fc.constant('delete' as const), at: fc.nat()}),
  fc.record({op: fc.constant('duplicates' as const), at: fc.nat(), value: duplicatesArb}),
  {weight: 3, arbitrary: fc.record({op: fc.constant('set-path' as const), path: fc.constantFrom(...fieldPaths), value: fc.oneof(valueArb, duplicatesArb)})},
)

interface Located {
  node: JsonNode
  replace: (value: JsonNode) => void
  remove: () => void
}

/** Every node of a tree with a way to replace or remove it (the root cannot be removed). */
function nodesOf(root: {value: JsonNode}): Located[] {
  const found: Located[] = [{node: root.value, replace: (value) => (root.value = value), remove: () => undefined}]
  const visit = (node: JsonNode): void => {
    if (found.length > 5000) return
    if (node instanceof JsonObject) {
      node.members.forEach((member) => {
        found.push({node: member[1], replace: (value) => (member[1] = value), remove: () => node.members.splice(node.members.indexOf(member), 1)})
        visit(member[1])
      })
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => {
        found.push({node: item, replace: (value) => (node[index] = value), remove: () => node.splice(index, 1)})
        visit(item)
      })
    }
  }
  visit(root.value)
  return found
}

/** Applies the mutations in order to a copy of `tree`. */
export function mutateTree(tree: JsonNode, mutations: readonly TreeMutation[]): JsonNode {
  const root = {value: cloneTree(tree)}
  for (const mutation of mutations) {
    if (mutation.op === 'set-path') {
      setPath(root, mutation.path, cloneTree(mutation.value))
      continue
    }
    const nodes = nodesOf(root)
    const target = nodes[mutation.at % nodes.length]!
    switch (mutation.op) {
      case 'replace':
      case 'duplicates':
        target.replace(cloneTree(mutation.value))
        break
      case 'delete':
        target.remove()
        break
      case 'set-member': {
        const object = target.node instanceof JsonObject ? target.node : root.value instanceof JsonObject ? root.value : null
        if (object === null) break
        const existing = object.members.find(([key]) => key === mutation.key)
        if (existing) existing[1] = cloneTree(mutation.value)
        else object.members.push([mutation.key, cloneTree(mutation.value)])
        break
      }
      case 'repeat-member': {
        if (!(target.node instanceof JsonObject) || target.node.members.length === 0) break
        const [key] = target.node.members[mutation.member % target.node.members.length]!
        target.node.members.push([key, cloneTree(mutation.value)])
        break
      }
      default:
        throw new Error(`unknown mutation ${String((mutation satisfies never as TreeMutation).op)}`)
    }
  }
  return root.value
}

/** Sets the value at `path`, creating objects (or, for an index, arrays) on the way. */
function setPath(root: {value: JsonNode}, path: ReadonlyArray<string | number>, value: JsonNode): void {
  if (!(root.value instanceof JsonObject)) root.value = new JsonObject([])
  let node: JsonNode = root.value
  path.forEach((step, i) => {
    const last = i === path.length - 1
    const fresh = (): JsonNode => (last ? value : typeof path[i + 1] === 'number' ? [] : new JsonObject([]))
    if (typeof step === 'number') {
      if (!Array.isArray(node)) return
      if (last || node[step] === undefined || typeof node[step] !== 'object' || node[step] === null) node[Math.min(step, node.length)] = fresh()
      node = node[Math.min(step, node.length - 1)] as JsonNode
    } else {
      if (!(node instanceof JsonObject)) return
      let member = node.members.find(([key]) => key === step)
      if (member === undefined) node.members.push((member = [step, fresh()]))
      else if (last || typeof member[1] !== 'object' || member[1] === null || member[1] instanceof RawJson) member[1] = fresh()
      node = member[1]
    }
  })
}

// ---------------------------------------------------------------------------------------------
// Byte mutations

/** Byte sequences a reader must survive: invalid and overlong UTF-8, encoded surrogates, a BOM, JSON punctuation. */
const interestingBytes = [
  [0x00], [0xff], [0xfe], [0x80], [0xc0, 0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80],
  [0xef, 0xbb, 0xbf], [0xfe, 0xff], [0x7b], [0x7d], [0x5b], [0x5d], [0x22], [0x5c], [0x2c], [0x3a], [0x2f, 0x2f], [0x2f, 0x2a], [0x0d], [0x0a], [0x09],
  [0x5c, 0x75, 0x64, 0x38, 0x30, 0x30], [0x5c, 0x75, 0x30, 0x30, 0x30, 0x30], [0x31, 0x65, 0x39, 0x39, 0x39], [0x2d, 0x30],
]

/** One raw edit of a text's bytes; `at` is taken modulo the length. */
export type ByteMutation =
  | {op: 'flip-bit'; at: number; bit: number}
  | {op: 'set-byte'; at: number; value: number}
  | {op: 'insert'; at: number; bytes: number[]}
  | {op: 'delete'; at: number; length: number}
  | {op: 'duplicate'; at: number; length: number; to: number}
  | {op: 'truncate'; at: number}
  | {op: 'prefix'; bytes: number[]}

export const byteMutationArb: fc.Arbitrary<ByteMutation> = fc.oneof(
  fc.record({op: fc.constant('flip-bit' as const), at: fc.nat(), bit: fc.nat(7)}),
  fc.record({op: fc.constant('set-byte' as const), at: fc.nat(), value: fc.nat(255)}),
  fc.record({op: fc.constant('insert' as const), at: fc.nat(), bytes: fc.oneof(fc.constantFrom(...interestingBytes), fc.array(fc.nat(255), {minLength: 1, maxLength: 8}))}),
  fc.record({op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({min: 1, max: 64})}),
  fc.record({op: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({min: 1, max: 256}), to: fc.nat()}),
  fc.record({op: fc.constant('truncate' as const), at: fc.nat()}),
  fc.record({op: fc.constant('prefix' as const), bytes: fc.constantFrom(...interestingBytes)}),
)

/** Applies byte mutations in order. */
export function mutateBytes(input: Uint8Array, mutations: readonly ByteMutation[]): Uint8Array {
  let bytes = Buffer.from(input)
  for (const mutation of mutations) {
    const at = (limit: number, value: number): number => (limit <= 0 ? 0 : value % limit)
    switch (mutation.op) {
      case 'flip-bit':
        if (bytes.length > 0) bytes[at(bytes.length, mutation.at)]! ^= 1 << mutation.bit
        break
      case 'set-byte':
        if (bytes.length > 0) bytes[at(bytes.length, mutation.at)] = mutation.value
        break
      case 'insert': {
        const i = at(bytes.length + 1, mutation.at)
        bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from(mutation.bytes), bytes.subarray(i)])
        break
      }
      case 'delete': {
        const i = at(bytes.length, mutation.at)
        bytes = Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + mutation.length)])
        break
      }
      case 'duplicate': {
        const from = at(bytes.length, mutation.at)
        const slice = Buffer.from(bytes.subarray(from, from + mutation.length))
        const to = at(bytes.length + 1, mutation.to)
        bytes = Buffer.concat([bytes.subarray(0, to), slice, bytes.subarray(to)])
        break
      }
      case 'truncate':
        bytes = bytes.subarray(0, at(bytes.length + 1, mutation.at))
        break
      case 'prefix':
        bytes = Buffer.concat([Buffer.from(mutation.bytes), bytes])
        break
      default:
        throw new Error(`unknown mutation ${String((mutation satisfies never as ByteMutation).op)}`)
    }
  }
  return new Uint8Array(bytes)
}

// ---------------------------------------------------------------------------------------------
// Documents

/** A manifest to mutate: its text and, when it parses, its tree. */
export interface ManifestSeed {
  name: string
  text: Uint8Array
  tree: JsonNode | undefined
}

/** A generated document: its bytes, which seed it came from (if any) and how it was made. */
export interface ManifestDocument {
  bytes: Uint8Array
  seed: number | null
  label: string
}

const short = (value: unknown): string => {
  const text = JSON.stringify(value, (_, item: unknown) => (item instanceof RawJson ? `raw(${item.text.slice(0, 24)}${item.text.length > 24 ? '…' : ''})` : item instanceof JsonObject ? Object.fromEntries(item.members.slice(0, 6)) : typeof item === 'string' && item.length > 40 ? `${item.slice(0, 12)}…(${item.length} chars)` : item))
  return text === undefined ? String(value) : text.length > 160 ? `${text.slice(0, 160)}…` : text
}

/** Documents of every kind, over the given seeds. */
export function documentArb(seeds: readonly ManifestSeed[]): fc.Arbitrary<ManifestDocument> {
  const parsed = seeds.map((seed, index) => ({seed, index})).filter(({seed}) => seed.tree !== undefined)
  const encoder = new TextEncoder()
  const indentArb = fc.constantFrom(0, 2, 4)
  return fc.oneof(
    {
      weight: 1,
      arbitrary: fc.record({value: fc.oneof(smallJsonArb, hostileObjectArb, fc.array(fc.tuple(keyArb, valueArb), {maxLength: 6}).map((members) => new JsonObject(members))), indent: indentArb}).map(({value, indent}) => ({
        bytes: encoder.encode(renderTree(value, indent)),
        seed: null,
        label: `a JSON value ${short(value)}`,
      })),
    },
    {
      weight: 5,
      arbitrary: fc
        .record({seed: fc.constantFrom(...parsed), mutations: fc.array(treeMutationArb, {minLength: 1, maxLength: 4}), indent: indentArb})
        .map(({seed, mutations, indent}) => ({
          bytes: encoder.encode(renderTree(mutateTree(seed.seed.tree as JsonNode, mutations), indent)),
          seed: seed.index,
          label: `${seed.seed.name} with ${mutations.map((mutation) => short(mutation)).join(', ')}`,
        })),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({seed: fc.nat(seeds.length - 1), mutations: fc.array(byteMutationArb, {minLength: 1, maxLength: 6})})
        .map(({seed, mutations}) => ({
          bytes: mutateBytes(seeds[seed]!.text, mutations),
          seed,
          label: `${seeds[seed]!.name} with bytes ${mutations.map((mutation) => short(mutation)).join(', ')}`,
        })),
    },
  )
}
