import {invisibleCharacter, legacyWorkflowCommand} from '../model/visible-text.js'

/**
 * Every JSON document svc-plugin prints (`--json`, SARIF, GitLab Code Quality, the JSON error shape) is
 * made here, from a value, by `JSON.stringify`: nothing builds JSON from strings. JSON escapes the C0
 * controls itself; {@link jsonText} also writes every other invisible character as a `\u` escape, so a
 * terminal or a log showing the document meets no control, bidirectional or invisible character, while
 * the value a parser reads back is exactly the one given.
 */

const invisibleCharacters = new RegExp(invisibleCharacter.source, 'gu')

/** A value as indented JSON text, ended with a line feed, every invisible character written as a `\u` escape. */
export function jsonText(value: unknown): string {
  return withoutInvisibleCharacters(`${JSON.stringify(value, null, 2)}\n`)
}

/**
 * Text with every invisible character but the line feed written as its JSON `\u` escape (a character
 * beyond the Basic Multilingual Plane as its two surrogates), and the runner's legacy command marker `##[`
 * as `##\u005b`. On JSON text this changes no value (outside its strings JSON holds no such character);
 * on any other document the escapes are visible text. The output sink applies it to every document it
 * writes, as a last guard.
 */
export function withoutInvisibleCharacters(text: string): string {
  return text
    .replace(invisibleCharacters, (character) => (character === '\n' ? character : unitEscapes(character)))
    .replaceAll(legacyWorkflowCommand, '##\\u005b')
}

function unitEscapes(character: string): string {
  let escaped = ''
  for (let index = 0; index < character.length; index++) escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`
  return escaped
}
