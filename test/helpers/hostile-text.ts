import {execFileSync} from 'node:child_process'
import fc from 'fast-check'
import {invisibleCharacter} from '../../src/model/visible-text.js'

/**
 * Hostile text and the checks that it did not escape its output (docs/output-escaping.md): strings an
 * artifact or a source tree can carry, and for each kind of output the thing that must never be seen.
 */

const range = (from: number, to: number): string[] => Array.from({length: to - from + 1}, (_, index) => String.fromCodePoint(from + index))

/** Every character the escaping must never let through raw, one by one. */
export const hostileCharacters: readonly string[] = [
  ...range(0x00, 0x1f),
  ...range(0x7f, 0x9f),
  ...['\u061c', '\u200e', '\u200f', ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
  '\u2028',
  '\u2029',
  ...['\u00ad', '\u034f', '\u115f', '\u1160', '\u17b4', '\u180e', '\u200b', '\u200c', '\u200d', '\u2060', '\u2065', '\u3164', '\ufe00', '\ufe0f', '\ufeff', '\uffa0', '\ufff0'],
  ...['\u{1bca0}', '\u{1d173}', '\u{e0001}', '\u{e0041}', '\u{e007f}', '\u{e0100}'],
  ...['\ud800', '\udbff', '\udc00', '\ufffe', '\uffff', '\ufdd0', '\u{1fffe}', '\u{10ffff}'],
]

/** Fragments that mean something to a terminal, a CI runner, Markdown, XML or a shell. */
export const hostileFragments: readonly string[] = [
  '\u001b[31mred\u001b[0m',
  '\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007',
  '\u001b[2J\u001b[H',
  '\u001b]0;owned title\u0007',
  '\u009b31m',
  '\r\u001b[Kerased',
  '\n::error title=owned::injected',
  '\n::add-mask::secret-value',
  '\n  ::warning file=x.js,line=1::indented',
  '::notice::at the start',
  '\r::error::after a carriage return',
  '\u2028::error::after a line separator',
  '##[error]legacy command',
  'x ##[add-mask]masked',
  '##[stop-commands]token',
  '[Click to fix](http://evil.example/fix)',
  '![image](https://evil.example/pixel.png)',
  '<img src=x onerror=alert(1)>',
  '<https://evil.example>',
  'https://evil.example/plain',
  'www.evil.example',
  'someone@evil.example',
  '**bold** _em_ ~~gone~~ `code`',
  '| cell | break |',
  '\\| escaped pipe',
  '&amp; &#x3C; &lt;',
  '$x^2$ :smile: @octocat #1',
  '$(touch${IFS}PWNED)',
  '`touch PWNED`',
  "it's 'single'",
  '"double" \\"escaped\\"',
  '; rm -rf / & echo > /dev/null',
  '<?xml version="1.0"?><!-- c --><![CDATA[ x ]]>',
  '\u202eevil\u202c',
  '\u2066isolated\u2069',
  'zero\u200bwidth',
]

/** One string holding every hostile character and fragment. */
export const hostileText: string = [...hostileFragments, hostileCharacters.join('')].join(' ')

/** Hostile strings: fragments, hostile characters and arbitrary code points (surrogate halves included), mixed. */
export const hostileString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(...hostileFragments),
      fc.constantFrom(...hostileCharacters),
      fc.integer({min: 0, max: 0x10ffff}).map((code) => String.fromCodePoint(code)),
      fc.string({unit: 'binary', maxLength: 6}),
      fc.string({maxLength: 6}),
    ),
    {maxLength: 10},
  )
  .map((parts) => parts.join(''))

const invisibleCharacters = new RegExp(invisibleCharacter.source, 'gu')

/** The characters of `text` that no output may carry raw: every invisible character but the line feed. */
export function rawInvisibleCharacters(text: string): string[] {
  return [...text.matchAll(invisibleCharacters)].map((match) => match[0]).filter((character) => character !== '\n')
}

/**
 * The lines of `text` the GitHub Actions runner would read as workflow commands: those that begin with
 * `::` after leading white space (the runner trims what .NET counts as white space), and those holding
 * the legacy marker `##[` anywhere.
 */
export function workflowCommandLines(text: string): string[] {
  return text.split('\n').filter((line) => /^[\s\u0085]*::/.test(line) || line.includes('##['))
}

/** A workflow command as the runner parses it (the `::command props::data` form). */
export interface ParsedWorkflowCommand {
  command: string
  properties: Record<string, string>
  data: string
}

/** Parses one line as the runner does (`TryParseV2`), unescaping properties and data; null when it is no command. */
export function parseWorkflowCommand(line: string): ParsedWorkflowCommand | null {
  const message = line.trimStart()
  if (!message.startsWith('::')) return null
  const end = message.indexOf('::', 2)
  if (end < 0) return null
  const info = message.slice(2, end)
  const space = info.indexOf(' ')
  const command = space < 0 ? info : info.slice(0, space)
  const properties: Record<string, string> = {}
  if (space > 0) {
    for (const pair of info.slice(space + 1).trim().split(',').filter((item) => item !== '')) {
      const at = pair.indexOf('=')
      if (at > 0 && at < pair.length - 1) properties[pair.slice(0, at)] = unescapeWorkflow(pair.slice(at + 1), true)
    }
  }
  return {command, properties, data: unescapeWorkflow(message.slice(end + 2), false)}
}

function unescapeWorkflow(text: string, property: boolean): string {
  let result = text.replaceAll('%0D', '\r').replaceAll('%0A', '\n')
  if (property) result = result.replaceAll('%3A', ':').replaceAll('%2C', ',')
  return result.replaceAll('%25', '%')
}

// A link the tool writes to a code's page: the one Markdown construct the summary may hold.
const toolLink = /\[`[a-z0-9:-]+`\]\(https:\/\/(?:github|gitlab)\.com\/[A-Za-z0-9_./-]+\/blob\/v[A-Za-z0-9.+-]+\/docs\/codes\/[a-z0-9-]+\.md\)/g

/**
 * The places where a Markdown summary could hold a construct the tool did not write: an ASCII punctuation
 * character that is not escaped with a backslash, outside the tool's own links, the table pipes and
 * delimiter rows, and the heading. CommonMark reads a backslash-escaped punctuation character as itself
 * and nothing else, so a summary without such places has no link, image, autolink, HTML, emphasis or
 * cell that a value made.
 */
export function unescapedMarkdown(summary: string): string[] {
  const findings: string[] = []
  for (const line of summary.split('\n')) {
    if (line === '' || line === '### svc-plugin validate' || /^\|( --- \|)+$/.test(line)) continue
    if (!line.startsWith('| ') || !line.endsWith(' |')) {
      findings.push(`not a table row: ${line}`)
      continue
    }
    for (const cell of splitCells(line.slice(2, -2))) {
      const text = cell.replace(toolLink, '')
      for (let index = 0; index < text.length; index++) {
        if (text[index] === '\\' && index + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[index + 1]!)) index++
        else if (/[!-/:-@[-`{-~]/.test(text[index]!)) findings.push(`${JSON.stringify(text[index])} in ${JSON.stringify(cell)}`)
      }
    }
  }
  return findings
}

/** The cells of a row's inside, split at the ` | ` the tool writes (a value's pipe is written `\|`, never after a blank). */
function splitCells(inside: string): string[] {
  return inside.split(' | ')
}

/**
 * What a POSIX shell (`sh`) makes of each command line: its words, after quote removal and expansion, run
 * in `cwd` (where a command substitution that escaped its quotes would leave a file).
 */
export function shellWords(commands: readonly string[], cwd: string): string[][] {
  if (commands.length === 0) return []
  const script = 'for line in "$@"; do eval "set -- $line"; printf "%s\\0" "$@"; printf "\\036"; done'
  const output = execFileSync('sh', ['-c', script, 'sh', ...commands], {cwd, encoding: 'utf8'})
  return output
    .split('\u001e')
    .slice(0, -1)
    .map((words) => words.split('\0').slice(0, -1))
}
