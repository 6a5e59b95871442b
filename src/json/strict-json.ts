import {parseTree} from 'jsonc-parser'
import type {Node, ParseError} from 'jsonc-parser'
import {childPointer, isArrayIndexToken, parentPointer, pointerTokens} from './pointer.js'
import {firstInvalidUtf8} from './utf8.js'
import {formatMiB} from '../quantities.js'

/**
 * Deepest nesting read. jsonc-parser descends recursively and would overflow the stack on hostile
 * input long before 8 MiB; no real manifest nests more than a handful of levels.
 */
export const maxJsonNesting = 1000

/**
 * Most objects and arrays a document of `textLength` characters may hold: one for every 32 characters, and
 * any number up to 1,000. Reading one costs far more memory than its two characters: 8 MiB of `{},` would
 * take hundreds of MiB and seconds of garbage collection to read. No real document comes near: a
 * manifest's file entries take about 100 characters each.
 */
export function maxJsonContainers(textLength: number): number {
  return Math.max(1000, Math.floor(textLength / 32))
}

/** A 1-based position in the text: `column` counts UTF-16 code units, as editors and SARIF do. */
export interface JsonPosition {
  line: number
  column: number
}

/** A JSON text that passed every strictness check of the toolchain's JSON, with positions for every value. */
export interface JsonDocument {
  /** The top-level object, as `JSON.parse` builds it. */
  readonly value: Record<string, unknown>
  /** The decoded text. */
  readonly text: string
  /** Position of the value at `pointer`, or null when no value is there. */
  locate(pointer: string): JsonPosition | null
  /**
   * Position of the value at `pointer` or, when it is absent, of its closest existing ancestor
   * (the parent object of a missing property); `pointer` names the value that was found.
   */
  locateNearest(pointer: string): JsonPosition & {pointer: string}
}

/**
 * Why a text is not strict JSON: a sentence saying what and where, the 1-based position when there is one,
 * and the pointer of the member concerned for a duplicate key (null otherwise).
 */
export interface JsonProblem {
  message: string
  pointer: string | null
  line: number | null
  column: number | null
}

/** What `readJsonDocument` returns: the document, or the one problem that says why not. */
export type ReadJsonResult = ({ok: true} & JsonDocument) | {ok: false; problem: JsonProblem}

// jsonc-parser's ParseErrorCode is an ambient const enum, which isolated modules cannot read.
const parseErrorText: Readonly<Record<number, string>> = {
  1: 'unexpected characters',
  2: 'the number is not valid',
  3: 'a property name in double quotes is expected',
  4: 'a value is expected',
  5: 'a colon is expected after the property name',
  6: 'a comma is expected between members',
  7: 'the object is not closed with "}"',
  8: 'the array is not closed with "]"',
  9: 'nothing may follow the top-level value',
  10: 'comments are not allowed in JSON',
  11: 'comments are not allowed in JSON',
  12: 'the string is not terminated',
  13: 'the number is incomplete',
  14: 'the \\u escape is not four hex digits',
  15: 'the escape sequence is not valid JSON',
  16: 'control characters must be escaped inside a string',
}
const invalidSymbol = 1
const propertyNameExpected = 3
const valueExpected = 4
const commaExpected = 6
const unexpectedEndOfString = 12
const invalidCharacter = 16

const utf8 = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true})
const lenientUtf8 = new TextDecoder('utf-8', {ignoreBOM: true})

/**
 * Reads bytes as strict JSON, the one JSON dialect of every file this toolchain reads (manifests,
 * certificates, trust stores, revocation lists): UTF-8 without a BOM, no comments, no trailing commas, no
 * duplicate property names (compared after unescaping), a top-level object, at most `maxBytes` (checked
 * before parsing). Never throws: anything else gives one problem whose message says what is wrong and
 * where (pointer null, except for a duplicate key, where it names the duplicated member).
 */
export function readJsonDocument(bytes: Uint8Array, options: {maxBytes: number}): ReadJsonResult {
  const {maxBytes} = options
  if (bytes.length > maxBytes) {
    return malformed(`The file is larger than ${formatMiB(maxBytes)}, the most it may hold.`, null, null)
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return malformed('The file starts with a UTF-8 byte order mark (line 1, column 1); save it as UTF-8 without a BOM.', null, {line: 1, column: 1})
  }
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    const offset = firstInvalidUtf8(bytes)
    const lines = new LineIndex(lenientUtf8.decode(bytes.subarray(0, Math.max(offset, 0))))
    const position = lines.endPosition()
    const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0')
    return malformed(`The file is not valid UTF-8: the byte sequence starting with 0x${byte} ${at(position)} (byte offset ${offset}) is ill-formed; save the file as UTF-8.`, null, position)
  }
  const lines = new LineIndex(text)
  // Both limits are at least maxJsonNesting: a text with no more `{` and `[` than that is within them.
  const containerLimit = maxJsonContainers(text.length)
  const past = mayNestDeeperThan(text, maxJsonNesting) ? firstOffsetPastLimits(text, maxJsonNesting, containerLimit) : null
  if (past !== null) {
    // Report an earlier syntax error first: parse only the text before the limit is passed.
    const earlier: ParseError[] = []
    parseTreeWithin(text.slice(0, past.offset), earlier)
    const first = earliest(earlier.filter((error) => error.offset + error.length < past.offset))
    if (first !== undefined) return syntaxError(text, lines, first)
    const position = lines.position(past.offset)
    if (past.limit === 'depth') return malformed(`The JSON nests more than ${maxJsonNesting} levels deep ${at(position)}.`, null, position)
    return malformed(`The JSON holds more than ${containerLimit} objects and arrays (one for every 32 characters of its text) ${at(position)}.`, null, position)
  }
  // The common case: valid JSON without duplicate keys. The native parser and a key scan decide it;
  // jsonc-parser's tree (for positions) is built only when a position is asked for.
  const fast = parseWithoutDuplicates(text)
  if (fast !== null) return {ok: true, ...documentOf(fast, text, () => parseTreeWithin(text, []) as Node, lines)}
  const errors: ParseError[] = []
  const root = parseTreeWithin(text, errors)
  if (root === 'too-deep') return malformed('The JSON nests too deeply to be read.', null, null)
  const first = earliest(errors)
  if (first !== undefined || root === undefined) {
    if (text.trim() === '') return malformed('The file is empty; a manifest is a JSON object.', null, {line: 1, column: 1})
    return syntaxError(text, lines, first)
  }
  if (root.type !== 'object') {
    const position = lines.position(root.offset)
    return malformed(`The top-level value is ${kindOfNode(root)} ${at(position)}; a manifest is a JSON object.`, null, position)
  }
  const duplicate = firstDuplicateKey(root)
  if (duplicate !== null) {
    const position = lines.position(duplicate.key.offset)
    const firstAt = lines.position(duplicate.first.offset)
    const name = duplicate.key.value as string
    return malformed(
      `The property ${JSON.stringify(name)} appears twice in one object, ${at(firstAt)} and again ${at(position)}; keep only one.`,
      duplicate.pointer,
      position,
    )
  }
  let value: Record<string, unknown>
  try {
    value = JSON.parse(text) as Record<string, unknown>
  } catch (error) {
    // Unreachable when jsonc-parser agrees with JSON.parse; kept so that non-JSON can never pass.
    return malformed(`The file is not valid JSON: ${(error as Error).message}.`, null, {line: 1, column: 1})
  }
  return {ok: true, ...documentOf(value, text, () => root, lines)}
}

/**
 * The document, whose positions come from jsonc-parser's tree, built on the first question only the tree can
 * answer: whether a pointer names a value is asked of the parsed value, and the top-level value starts at
 * the first character that is not whitespace. A manifest of 20,000 files whose report names only missing
 * members (placed at the nearest member that exists, often the top level) never builds the tree.
 */
function documentOf(value: Record<string, unknown>, text: string, tree: () => Node, lines: LineIndex): JsonDocument {
  let root: Node | undefined
  const rootNode = (): Node => (root ??= tree())
  const offsetOf = (pointer: string): number => (pointer === '' ? text.search(/[^ \t\n\r]/) : (nodeAt(rootNode(), pointer)?.offset ?? -1))
  return {
    value,
    text,
    locate(pointer) {
      return namesValue(value, pointer) ? lines.position(offsetOf(pointer)) : null
    },
    locateNearest(pointer) {
      for (let current: string | null = pointer; current !== null; current = parentPointer(current)) {
        if (namesValue(value, current)) return {pointer: current, ...lines.position(offsetOf(current))}
      }
      return {pointer: '', ...lines.position(offsetOf(''))}
    },
  }
}

/** True when `pointer` names a value inside `value` (parsed JSON), by the rules {@link nodeAt} follows in the tree. */
function namesValue(value: unknown, pointer: string): boolean {
  const tokens = pointerTokens(pointer)
  if (tokens === null) return false
  let current = value
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!isArrayIndexToken(token) || Number(token) >= current.length) return false
      current = current[Number(token)]
    } else if (typeof current === 'object' && current !== null) {
      if (!Object.hasOwn(current, token)) return false
      current = (current as Record<string, unknown>)[token]
    } else {
      return false
    }
  }
  return true
}

/**
 * The top-level object of `text` when it is JSON (the native parser accepts exactly RFC 8259: no
 * comments, no trailing commas), an object, and free of duplicate keys; null otherwise, and the
 * careful path then says what is wrong and where.
 */
function parseWithoutDuplicates(text: string): Record<string, unknown> | null {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null
  return hasDuplicateKey(text) ? null : (value as Record<string, unknown>)
}

/**
 * True when an object of `text` (known to be valid JSON) names one property twice, compared after
 * unescaping. A key is the first string after `{`, or after a `,` inside an object.
 */
function hasDuplicateKey(text: string): boolean {
  const objects: Array<Set<string> | null> = []
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (ch === 0x22) {
      let end = i + 1
      let escaped = false
      for (let c = text.charCodeAt(end); c !== 0x22; c = text.charCodeAt(end)) {
        if (c === 0x5c) {
          escaped = true
          end += 2
        } else {
          end += 1
        }
      }
      const keys = objects.at(-1)
      if (expectKey && keys) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end)
        if (keys.has(key)) return true
        keys.add(key)
        expectKey = false
      }
      i = end
    } else if (ch === 0x7b) {
      objects.push(new Set())
      expectKey = true
    } else if (ch === 0x5b) {
      objects.push(null)
      expectKey = false
    } else if (ch === 0x7d || ch === 0x5d) {
      objects.pop()
      expectKey = false
    } else if (ch === 0x2c) {
      expectKey = objects.at(-1) != null
    }
  }
  return false
}

/**
 * jsonc-parser's tree with its errors; `too-deep` if its recursion overflowed the stack anyway (defence in
 * depth: the nesting check keeps it far from the limit).
 */
function parseTreeWithin(text: string, errors: ParseError[]): Node | undefined | 'too-deep' {
  const {masked, commentStarts} = maskLongWhitespace(text)
  const found: ParseError[] = []
  let root: Node | undefined
  try {
    root = parseTree(masked, found, {disallowComments: true, allowTrailingComma: false, allowEmptyContent: false})
  } catch {
    return 'too-deep'
  }
  // The comments standing in for whitespace are not the file's: only a real one is an error.
  errors.push(...found.filter((error) => !(error.error === invalidCommentToken && commentStarts.has(error.offset))))
  return root
}

/** Runs of whitespace at least this long between tokens are scanned as one comment of the same length. */
const longWhitespace = 256
const invalidCommentToken = 10

/**
 * The text with every long run of whitespace outside strings turned into a block comment of exactly the
 * same length (`/*` and `*\/` replacing its first and last two characters), so that every offset stays
 * where it was. jsonc-parser's scanner builds a whitespace token one character at a time, which makes a
 * file of megabytes of spaces take seconds; it reads a comment in one piece. The comments' starts are
 * returned so that their "comments are not allowed" errors can be dropped.
 */
function maskLongWhitespace(text: string): {masked: string; commentStarts: Set<number>} {
  const commentStarts = new Set<number>()
  const parts: string[] = []
  let copied = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 0x5c) i++
      else if (code === 0x22) inString = false
      continue
    }
    if (code === 0x22) {
      inString = true
      continue
    }
    if (!isJsonWhitespace(code)) continue
    let end = i
    while (end < text.length && isJsonWhitespace(text.charCodeAt(end))) end++
    if (end - i >= longWhitespace) {
      parts.push(text.slice(copied, i), '/*', text.slice(i + 2, end - 2), '*/')
      commentStarts.add(i)
      copied = end
    }
    i = end - 1
  }
  if (copied === 0) return {masked: text, commentStarts}
  parts.push(text.slice(copied))
  return {masked: parts.join(''), commentStarts}
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d
}

function earliest(errors: readonly ParseError[]): ParseError | undefined {
  return errors.reduce<ParseError | undefined>((found, error) => (found === undefined || error.offset < found.offset ? error : found), undefined)
}

function syntaxError(text: string, lines: LineIndex, error: ParseError | undefined): ReadJsonResult {
  const offset = error === undefined ? 0 : errorOffset(text, error)
  const position = lines.position(offset)
  return malformed(`The file is not valid JSON: ${describeParseError(text, error, offset)} ${at(position)}.`, null, position)
}

/** The value node at `pointer`, or null. */
function nodeAt(root: Node, pointer: string): Node | null {
  const tokens = pointerTokens(pointer)
  if (tokens === null) return null
  let node: Node = root
  for (const token of tokens) {
    const children = node.children ?? []
    let next: Node | undefined
    if (node.type === 'object') {
      next = children.find((property) => property.children?.[0]?.value === token)?.children?.[1]
    } else if (node.type === 'array' && isArrayIndexToken(token)) {
      next = children[Number(token)]
    }
    if (next === undefined) return null
    node = next
  }
  return node
}

/** The first property name that repeats within one object, in document order, with the member's pointer. */
function firstDuplicateKey(root: Node): {key: Node; first: Node; pointer: string} | null {
  // The path is kept as tokens and turned into a pointer only for the duplicate: most manifests have none.
  const path: Array<string | number> = []
  const pointerOf = (tokens: ReadonlyArray<string | number>): string => tokens.reduce<string>((pointer, token) => childPointer(pointer, token), '')
  const visit = (node: Node): {key: Node; first: Node; pointer: string} | null => {
    if (node.type === 'object') {
      const seen = new Map<string, Node>()
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? []
        if (key === undefined) continue
        const name = key.value as string
        const earlier = seen.get(name)
        if (earlier !== undefined) return {key, first: earlier, pointer: pointerOf([...path, name])}
        seen.set(name, key)
        if (value !== undefined && (value.type === 'object' || value.type === 'array')) {
          path.push(name)
          const nested = visit(value)
          path.pop()
          if (nested !== null) return nested
        }
      }
    } else if (node.type === 'array') {
      const children = node.children ?? []
      for (let i = 0; i < children.length; i++) {
        const child = children[i] as Node
        if (child.type !== 'object' && child.type !== 'array') continue
        path.push(i)
        const nested = visit(child)
        path.pop()
        if (nested !== null) return nested
      }
    }
    return null
  }
  return visit(root)
}

/** False when the text holds too few `{` and `[` to nest deeper than `limit`: the exact scan is skipped. */
function mayNestDeeperThan(text: string, limit: number): boolean {
  const openers = /[[{]/g
  for (let count = 0; openers.exec(text) !== null; ) if (++count > limit) return true
  return false
}

/**
 * Offset of the first `{` or `[` (outside strings) that opens nesting level `depthLimit + 1`, or opens the
 * container number `containerLimit + 1`, and which limit it passes; null when neither is passed.
 */
function firstOffsetPastLimits(text: string, depthLimit: number, containerLimit: number): {offset: number; limit: 'depth' | 'containers'} | null {
  let depth = 0
  let containers = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (inString) {
      if (ch === 0x5c) i += 1
      // A raw line break ends a string for jsonc-parser too, which then goes on parsing.
      else if (ch === 0x22 || ch === 0x0a || ch === 0x0d) inString = false
    } else if (ch === 0x22) {
      inString = true
    } else if (ch === 0x7b || ch === 0x5b) {
      depth += 1
      containers += 1
      if (depth > depthLimit) return {offset: i, limit: 'depth'}
      if (containers > containerLimit) return {offset: i, limit: 'containers'}
    } else if (ch === 0x7d || ch === 0x5d) {
      depth -= 1
    }
  }
  return null
}

/**
 * Where the error really is: jsonc-parser reports a string holding a raw control character, or ended
 * by a raw line break, at the string's start.
 */
function errorOffset(text: string, error: ParseError): number {
  if (error.error === invalidCharacter || error.error === unexpectedEndOfString) {
    for (let i = error.offset + 1; i <= error.offset + error.length && i < text.length; i++) {
      if (text.charCodeAt(i) < 0x20) return i
    }
  }
  return error.offset
}

function describeParseError(text: string, error: ParseError | undefined, offset: number): string {
  if (error === undefined) return 'a value is expected'
  const next = text[offset]
  if ((error.error === propertyNameExpected || error.error === valueExpected) && (next === '}' || next === ']')) {
    const previous = text.slice(0, offset).trimEnd().at(-1)
    if (previous === ',') return `a trailing comma before "${next}" is not allowed`
  }
  if (error.error === commaExpected && /[0-9]/.test(next ?? '') && /(^|[^0-9.eE+-])-?0$/.test(text.slice(Math.max(0, offset - 2), offset))) {
    return 'numbers must not have leading zeros'
  }
  if ((error.error === invalidCharacter || error.error === unexpectedEndOfString) && text.charCodeAt(offset) < 0x20) {
    return `control character U+${text.charCodeAt(offset).toString(16).toUpperCase().padStart(4, '0')} must be escaped inside a string`
  }
  if (error.error === invalidSymbol) {
    const symbol = text.slice(error.offset, error.offset + Math.min(error.length, 20))
    if (symbol.startsWith("'")) return 'strings and property names must use double quotes'
    return `${JSON.stringify(symbol)} is not a JSON value or token`
  }
  if (error.error === valueExpected && offset >= text.length) return 'the text ends where a value is expected'
  return parseErrorText[error.error] ?? 'the text is not JSON'
}

function kindOfNode(node: Node): string {
  switch (node.type) {
    case 'array':
      return 'an array'
    case 'string':
      return 'a string'
    case 'number':
      return 'a number'
    case 'boolean':
      return 'a boolean'
    case 'null':
      return 'null'
    default:
      return `a ${node.type}`
  }
}

function malformed(message: string, pointer: string | null, position: JsonPosition | null): ReadJsonResult {
  return {
    ok: false,
    problem: {message, pointer, line: position?.line ?? null, column: position?.column ?? null},
  }
}

function at(position: JsonPosition): string {
  return `at line ${position.line}, column ${position.column}`
}


/** Line starts of a text; JSON's only line breaks are LF, CR LF and CR. */
class LineIndex {
  // Line starts are found as far as a lookup needs them: a manifest without diagnostics never needs a
  // position, and one whose diagnostics sit near the top (20,000 files[] below) reads only the first lines.
  readonly #starts: number[] = [0]
  /** Characters before this offset have been read for line breaks. */
  #scanned = 0

  constructor(private readonly text: string) {}

  #scanTo(offset: number): void {
    const text = this.text
    const starts = this.#starts
    let i = this.#scanned
    for (; i < offset; i++) {
      const ch = text.charCodeAt(i)
      if (ch === 0x0a) starts.push(i + 1)
      else if (ch === 0x0d) {
        if (text.charCodeAt(i + 1) === 0x0a) i += 1
        starts.push(i + 1)
      }
    }
    this.#scanned = i
  }

  /** The 1-based position of UTF-16 offset `offset`. */
  position(offset: number): JsonPosition {
    this.#scanTo(offset)
    const starts = this.#starts
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if ((starts[middle] as number) <= offset) low = middle
      else high = middle - 1
    }
    return {line: low + 1, column: offset - (starts[low] as number) + 1}
  }

  /** The position just after the last character. */
  endPosition(): JsonPosition {
    return this.position(this.text.length)
  }
}
