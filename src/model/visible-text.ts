/**
 * How text that came from an artifact or a source tree is shown to a person: every character that is not
 * shown as itself is written as a visible escape instead. This is the one definition of those characters;
 * each output kind (text lines, JSON, XML, workflow commands, Markdown) escapes them in its own renderer
 * (docs/output-escaping.md).
 */

/**
 * A character that is not shown as itself, or that drives what shows it: the controls (C0, DEL, C1, line
 * and paragraph separators), the invisible formatting characters (bidirectional overrides and isolates,
 * zero-width characters), every other default-ignorable code point (variation selectors, fillers, tags),
 * lone surrogates and the noncharacters.
 */
export const invisibleCharacter = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/u

const invisibleCharacters = new RegExp(invisibleCharacter.source, 'gu')

/**
 * The legacy workflow-command marker of the GitHub Actions runner, which it honours anywhere in a line
 * of a job's log (`##[add-mask]…`, `##[error]…`, `##[stop-commands]…`).
 */
export const legacyWorkflowCommand = '##['

const shortEscapes: Readonly<Record<string, string>> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}

/**
 * The visible escape of one character: `\n`, `\r`, `\t`, `\uXXXX` (four lower-case hex digits) for any
 * other in the Basic Multilingual Plane (a lone surrogate included), `\u{XXXXX}` above it.
 */
export function escapeCharacter(character: string): string {
  const short = shortEscapes[character]
  if (short !== undefined) return short
  const code = character.codePointAt(0) ?? 0
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * Text as a person may safely be shown it on a terminal or in a log: every {@link invisibleCharacter}
 * written as its visible escape ({@link escapeCharacter}), and the runner's legacy command marker `##[`
 * broken as `##\u005b`. Everything else, the backslash included, is kept, so the result is idempotent
 * (escaping it again changes nothing) but not reversible: the exact value is in the JSON output.
 */
export function visibleText(text: string): string {
  return text.replace(invisibleCharacters, escapeCharacter).replaceAll(legacyWorkflowCommand, '##\\u005b')
}

/** True when {@link visibleText} shows `text` exactly as it is. */
export function showsAsItself(text: string): boolean {
  return !invisibleCharacter.test(text) && !text.includes(legacyWorkflowCommand)
}
