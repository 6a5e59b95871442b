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

/** The severity word, wrapped in its terminal colour when `color` is true. */
export function severityWord(severity: Severity, color: boolean): string {
  return color ? `\u001b[${severityColors[severity]}m${severity}\u001b[39m` : severity
}
