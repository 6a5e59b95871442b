import {visibleText} from '../model/visible-text.js'

/**
 * Markdown is built from tables of typed cells, never from strings: {@link markdownTable} writes every text
 * part escaped ({@link markdownText}) and only the tool's own links ({@link MarkdownLink}) as Markdown, so
 * no value can become a link, an image, HTML, emphasis, a heading or another table cell.
 */

/** A link the tool makes to one of its own pages, shown as the code it documents. */
export interface MarkdownLink {
  readonly code: string
  readonly href: string
}

/** A part of a cell: text (escaped) or one of the tool's links. */
export type MarkdownPart = string | MarkdownLink

/** A table cell: one part, or parts in order. */
export type MarkdownCell = MarkdownPart | readonly MarkdownPart[]

// Every ASCII punctuation character: CommonMark lets each be written with a backslash before it, and a
// character written so starts nothing (no link, image, HTML, autolink, emphasis, code, entity or cell).
const asciiPunctuation = /[!-/:-@[-`{-~]/g

/**
 * Text as literal Markdown: shown visibly first ({@link visibleText}: no line break or control can start a
 * block), then every ASCII punctuation character escaped with a backslash — `[`, `!`, `<`, `&`, `*`, `_`,
 * `` ` ``, `|`, and `:`, `.` and `@`, which GitHub's autolinks need.
 */
export function markdownText(text: string): string {
  return visibleText(text).replace(asciiPunctuation, (character) => `\\${character}`)
}

/** A link of the tool's, when its code and address are of the shapes it makes; otherwise the code as text. */
function markdownLink(link: MarkdownLink): string {
  if (!/^[a-z0-9:-]+$/.test(link.code) || !/^https:\/\/[A-Za-z0-9\-._~/@%+]+$/.test(link.href)) return markdownText(link.code)
  return `[\`${link.code}\`](${link.href})`
}

function markdownCell(cell: MarkdownCell): string {
  const parts = (Array.isArray(cell) ? cell : [cell]) as readonly MarkdownPart[]
  return parts.map((part) => (typeof part === 'string' ? markdownText(part) : markdownLink(part))).join('')
}

/** A table: its header (the tool's words), the delimiter row, then a row of cells per row, as lines. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly MarkdownCell[]>): string[] {
  const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`
  return [row(header.map(markdownText)), row(header.map(() => '---')), ...rows.map((cells) => row(cells.map(markdownCell)))]
}
