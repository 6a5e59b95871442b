import type {Severity} from '../manifest/diagnostic.js'
import {visibleText} from '../model/visible-text.js'
import {paint} from './color.js'

/**
 * Text output (a terminal, a CI log) is built from typed lines and written by one function,
 * {@link textLines}: every part of every line is escaped there ({@link visibleText}), whoever made it, and
 * the tool's own styling (colour) is added after escaping. A renderer or a command never escapes, and
 * cannot forget to: no other path turns a line into the text that is written.
 */

/** A part of a line the tool styles (a severity word in its colour); its text is escaped like any other. */
export interface StyledText {
  readonly style: Severity
  readonly text: string
}

/** A part of a line: text, or text the tool styles. */
export type TextPart = string | StyledText

/** A line made of parts, escaped one by one and styled after. */
export interface PartsLine {
  readonly parts: readonly TextPart[]
}

/**
 * One line of text output: a string, or {@link PartsLine parts}. A line break inside a line is never one
 * of the tool's: it is shown as `\n`, so a value cannot start a line of its own.
 */
export type TextLine = string | PartsLine

/** A line of these parts. */
export function line(...parts: TextPart[]): PartsLine {
  return {parts}
}

/** Text the tool styles as `style`. */
export function styled(style: Severity, text: string): StyledText {
  return {style, text}
}

/**
 * Lines as they are written, each ended with a line feed: every part escaped ({@link visibleText}), then
 * painted when `color`; a line that would begin (after blanks) with `::`, a GitHub workflow command, has
 * its first colon written `\u003a`.
 */
export function textLines(lines: readonly TextLine[], options: {readonly color: boolean}): string {
  return lines.map((text) => `${renderLine(text, options.color)}\n`).join('')
}

/** The text of a line's parts, unescaped and unstyled: for a renderer that escapes for its own output (XML). */
export function plainText(text: TextLine): string {
  return partsOf(text)
    .map((part) => (typeof part === 'string' ? part : part.text))
    .join('')
}

function partsOf(text: TextLine): readonly TextPart[] {
  return typeof text === 'string' ? [text] : text.parts
}

function renderLine(text: TextLine, color: boolean): string {
  const parts = partsOf(text).map((part) => (typeof part === 'string' ? {text: visibleText(part)} : {text: visibleText(part.text), style: part.style}))
  // The runner reads a line as a workflow command when it begins with `::` after leading blanks.
  const command = /^\s*::/.exec(parts.map((part) => part.text).join(''))
  if (command !== null) {
    let colon = command[0].length - 2
    for (const part of parts) {
      if (colon < part.text.length) {
        part.text = `${part.text.slice(0, colon)}\\u003a${part.text.slice(colon + 1)}`
        break
      }
      colon -= part.text.length
    }
  }
  return parts.map((part) => (color && part.style !== undefined ? paint(part.style, part.text) : part.text)).join('')
}
