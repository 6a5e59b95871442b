/**
 * The entry-path policy: one pure judge for every path that becomes, or came from,
 * an archive entry name. Pack applies it to source paths, every reader to archive entries.
 */

/** Why a path cannot be an archive entry (one reason per rule of the entry-path policy). */
export type EntryPathProblem =
  | 'empty'
  | 'control-character'
  | 'too-long'
  | 'too-deep'
  | 'absolute'
  | 'drive-letter'
  | 'backslash'
  | 'parent-segment'
  | 'dot-segment'
  | 'empty-segment'
  | 'reserved-character'
  | 'trailing-dot-or-space'
  | 'device-name'
  | 'short-name-alias'
  | 'format-character'
  | 'segment-too-long'

/** Options of {@link checkEntryPath}. */
export interface EntryPathOptions {
  /**
   * The path names a file of a source tree, not an archive entry: `\` separates segments instead of
   * being refused, and `.` or empty segments are tolerated (those rules are for archive names).
   */
  source?: boolean
}

/** Longest accepted path, in UTF-16 code units (what Windows counts against its path limits). */
export const maxEntryPathLength = 200
/** Most segments an accepted path may have. */
export const maxEntryPathDepth = 32
/**
 * Longest accepted segment, in bytes of UTF-8: the longest file name ext4, APFS and most other file systems
 * take (NTFS counts 255 UTF-16 code units, which a path of {@link maxEntryPathLength} never reaches). A name
 * within the path's length but with a longer segment could be accepted and then never be installed.
 */
export const maxEntrySegmentBytes = 255

// C0 controls (NUL included), DEL and C1 controls.
const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/
const reservedCharacter = /[<>:"|?*]/
const drivePrefix = /^[A-Za-z]:/
// Windows device names, matched on the segment's part before its first dot, trailing spaces ignored
// (Windows opens the device for `CON.txt` and `con .log` alike); the superscript digits name the same
// ports, and CONIN$ / CONOUT$ are the console's input and output.
const deviceNames = '(?:con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³]|conin\\$|conout\\$)'
const deviceName = new RegExp(`^${deviceNames}$`, 'i')
// An 8.3 short name (`LONGDI~1`): on NTFS it can be another spelling of a different entry's long name,
// so two entries may land on one file.
const shortNameAlias = /~\d/
// Formatting characters (Unicode category Cf: bidirectional overrides, zero-width joiners and spaces, soft
// hyphens) and every default-ignorable code point (the Unicode property Default_Ignorable_Code_Point: also
// the combining grapheme joiner U+034F, variation selectors such as U+FE0F, the Hangul fillers U+115F,
// U+1160, U+3164 and U+FFA0, tag characters, and the code points Unicode reserves as ignorable) render as
// nothing, or change how their neighbours render, so a name holding one displays as another name. The
// property is the regular expression engine's own, so it follows the Unicode version of the Node.js it runs on.
const formatCharacter = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u

/**
 * Judges one entry path against the entry-path policy (docs/artifact-format.md) and returns the first rule it breaks, or null when the
 * path is acceptable. Pure: no file system access. Directory entries are judged without their
 * trailing `/`. Duplicate and case/NFC collisions need the other names: see {@link entryCollisionKey}.
 */
export function checkEntryPath(path: string, options: EntryPathOptions = {}): EntryPathProblem | null {
  // Most names are plain: taken at once, without the rule-by-rule reading below, which gives them null too.
  if (path.length <= maxEntryPathLength && plainPath.test(path)) return null
  return checkEntryPathByRule(path, options)
}

/**
 * Paths every rule accepts, in either mode, told by one expression: at most {@link maxEntryPathDepth}
 * segments of ASCII letters, digits, `_`, `-` and `.`, none starting with `.` or ending with `.`, none
 * a device name (a device name before a dot included). Anything else is read rule by rule.
 */
const plainSegment = `(?!${deviceNames}(?:[./]|$))[a-z0-9_-](?:[a-z0-9_.-]*[a-z0-9_-])?`
const plainPath = new RegExp(`^${plainSegment}(?:/${plainSegment}){0,${maxEntryPathDepth - 1}}$`, 'i')

/** {@link checkEntryPath} without its shortcut for plain names: every rule in turn (exported for the tests). */
export function checkEntryPathByRule(path: string, options: EntryPathOptions = {}): EntryPathProblem | null {
  const source = options.source === true
  if (path.length === 0) return 'empty'
  if (controlCharacter.test(path)) return 'control-character'
  if (formatCharacter.test(path)) return 'format-character'
  if (path.length > maxEntryPathLength) return 'too-long'
  if (path.startsWith('/') || path.startsWith('\\')) return 'absolute'
  if (drivePrefix.test(path)) return 'drive-letter'
  if (!source && path.includes('\\')) return 'backslash'
  const segments = path.split(source ? /[\\/]/ : '/')
  if (segments.length > maxEntryPathDepth) return 'too-deep'
  for (const segment of segments) {
    const problem = checkSegment(segment, source)
    if (problem !== null) return problem
  }
  return null
}

function checkSegment(segment: string, source: boolean): EntryPathProblem | null {
  if (segment === '') return source ? null : 'empty-segment'
  // `..` is refused even where it would resolve back inside.
  if (segment === '..') return 'parent-segment'
  if (segment === '.') return source ? null : 'dot-segment'
  if (reservedCharacter.test(segment)) return 'reserved-character'
  if (segment.endsWith('.') || segment.endsWith(' ')) return 'trailing-dot-or-space'
  const stem = segment.split('.', 1)[0]!.trimEnd()
  if (deviceName.test(stem)) return 'device-name'
  if (shortNameAlias.test(segment)) return 'short-name-alias'
  // A UTF-16 code unit is at most 3 bytes of UTF-8: a shorter segment cannot be too long.
  if (segment.length * 3 > maxEntrySegmentBytes && Buffer.byteLength(segment, 'utf8') > maxEntrySegmentBytes) return 'segment-too-long'
  return null
}

const problemText: Record<EntryPathProblem, string> = {
  empty: 'is empty',
  'control-character': 'contains a NUL or control character',
  'too-long': `is longer than ${maxEntryPathLength} characters`,
  'too-deep': `has more than ${maxEntryPathDepth} segments`,
  absolute: 'is absolute',
  'drive-letter': 'starts with a drive letter',
  backslash: 'contains a backslash',
  'parent-segment': 'has a ".." segment',
  'dot-segment': 'has a "." segment',
  'empty-segment': 'has an empty segment',
  'reserved-character': 'contains one of the characters < > : " | ? *',
  'segment-too-long': `has a segment longer than ${maxEntrySegmentBytes} bytes in UTF-8, more than a file system takes for one name`,
  'trailing-dot-or-space': 'has a segment ending with a dot or a space',
  'device-name': 'uses a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, CONIN$, CONOUT$)',
  'short-name-alias': 'has a segment with "~" and a digit, the shape of a Windows 8.3 short name that can alias another entry',
  'format-character': 'contains an invisible or formatting character (such as a bidirectional override, a zero-width space, a variation selector or a Hangul filler) that lets it display as another name',
}

/** A plain sentence saying why `path` was refused, naming the path (JSON-quoted, so controls stay visible). */
export function describeEntryPathProblem(path: string, problem: EntryPathProblem): string {
  return `The path ${quoteName(path)} ${problemText[problem]}.`
}

/**
 * The key two entry names collide on (equal case-insensitively after Unicode NFC):
 * NFC, then a full case fold (upper then lower, so `ß` meets `SS`), then NFC again. Two names with
 * the same key would land on one file on a case-insensitive or normalising file system.
 */
export function entryCollisionKey(path: string): string {
  // ASCII is its own NFC and folds by lower-casing alone: the common case skips three passes.
  if (asciiOnly.test(path)) return path.toLowerCase()
  return path.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC')
}

const asciiOnly = /^[\x00-\x7f]*$/

/**
 * An entry name quoted for a message: JSON string syntax, with C1 controls, formatting characters
 * (bidirectional overrides included) and default-ignorable code points escaped too, so a hostile name
 * cannot drive the terminal that prints the message and an invisible character shows where it is.
 */
export function quoteName(name: string): string {
  return JSON.stringify(name).replace(shownEscaped, (c) => c.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''))
}

const shownEscaped = /[\u0080-\u009f\p{Cf}\p{Default_Ignorable_Code_Point}]/gu
