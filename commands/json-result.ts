/**
 * The one vocabulary of the `--json` results (docs/json-output.md): the same names for the same things in
 * every command. A problem or a warning is `{code, severity, message, …}` with `file`, `pointer`, `line`
 * and `column` where a location applies; the library's results are mapped here where their names differ.
 */

/** A problem or warning as every `--json` result prints it. */
export interface JsonProblem {
  code: string
  severity: 'error' | 'warning'
  message: string
  [detail: string]: unknown
}

/** A refusal's reason as a problem (severity `error`); a library `path` inside the plugin becomes `file`. */
export function errorProblem(problem: LibraryProblem): JsonProblem {
  return asProblem(problem, 'error')
}

/** A warning as a problem of severity `warning`. */
export function warningProblem(problem: LibraryProblem): JsonProblem {
  return asProblem(problem, 'warning')
}

/** A problem or warning as the library reports it: a code, a message, maybe a path inside the plugin. */
interface LibraryProblem {
  readonly code: string
  readonly message: string
  readonly path?: string | null
}

function asProblem(problem: LibraryProblem, severity: JsonProblem['severity']): JsonProblem {
  const {code, message, path, ...details} = problem as LibraryProblem & Record<string, unknown>
  return {code, severity, message, ...details, ...(path === undefined ? {} : {file: path})}
}
