import type {Severity} from '../manifest/diagnostic.js'

/** What decides whether terminal output may carry colour. */
export interface ColorContext {
  /** Whether the stream written to is a terminal. */
  isTTY: boolean | undefined
  /** The environment; `NO_COLOR` set to anything non-empty turns colour off (no-color.org). */
  env: Readonly<Record<string, string | undefined>>
  /** The user's `--no-color`. */
  noColor: boolean
}

/** True when colour is wanted: a terminal, no `NO_COLOR`, no `--no-color`. */
export function colorEnabled({isTTY, env, noColor}: ColorContext): boolean {
  if (noColor) return false
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return isTTY === true
}

// SGR foreground colours; each is closed with 39 (default foreground), not a full reset.
const severityColors: Record<Severity, number> = {error: 31, warning: 33, info: 36}

/**
 * Text wrapped in the terminal colour of a severity. Only the text-line renderer (text-lines.ts) calls it,
 * on text it has already escaped: the escape sequences it adds are the only ones text output carries.
 */
export function paint(style: Severity, escapedText: string): string {
  return `\u001b[${severityColors[style]}m${escapedText}\u001b[39m`
}
