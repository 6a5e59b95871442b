/** Why an entrypoint executable path does not stay inside the version directory. */
export type ExecutablePathProblem = 'empty' | 'absolute' | 'drive' | 'parent-segment'

/** Why an icon path is unsafe. */
export type IconPathProblem = 'empty' | 'absolute' | 'backslash' | 'parent-segment'

const drivePrefix = /^[A-Za-z]:/

/** True when any segment, after splitting on `separators`, is exactly `..`. */
function hasParentSegment(path: string, separators: RegExp): boolean {
  return path.split(separators).includes('..')
}

/**
 * Why `path` cannot be an entrypoint executable relative to the version directory, or null:
 * `empty`; `absolute` (starts with `/` or `\`, which covers UNC paths); `drive` (`C:`, with or without a
 * separator after it); `parent-segment` (a `..` segment after splitting on both `/` and `\`, even when
 * the path would resolve back inside).
 */
export function checkExecutablePath(path: string): ExecutablePathProblem | null {
  if (path === '') return 'empty'
  if (path.startsWith('/') || path.startsWith('\\')) return 'absolute'
  if (drivePrefix.test(path)) return 'drive'
  if (hasParentSegment(path, /[/\\]/)) return 'parent-segment'
  return null
}

const scriptExtension = /\.(?:sh|bat|cmd|ps1|command)$/i

/** True when `path` names a script (`.sh .bat .cmd .ps1 .command`, case-insensitive), which is never an executable. */
export function isScriptExecutable(path: string): boolean {
  return scriptExtension.test(path)
}

/**
 * Why `path` is not a safe icon path, or null. The icon path is an archive path, so forward
 * slashes only: a leading `/` or `\` or a drive prefix (`C:`) is `absolute`, any other `\` is `backslash`.
 */
export function checkIconPath(path: string): IconPathProblem | null {
  if (path.trim() === '') return 'empty'
  if (path.startsWith('/') || path.startsWith('\\') || drivePrefix.test(path)) return 'absolute'
  if (path.includes('\\')) return 'backslash'
  if (hasParentSegment(path, /\//)) return 'parent-segment'
  return null
}
