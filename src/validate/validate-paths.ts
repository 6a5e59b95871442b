import {access} from 'node:fs/promises'
import path from 'node:path'
import {isCancellation, throwIfCancelled} from '../cancellation.js'
import {isSvcPluginError} from '../errors.js'
import {ValidationError} from '../manifest/errors.js'
import type {SubjectResult} from '../manifest/report.js'
import {validatePath, type ValidatePathOptions} from './validate-path.js'

/** Characters that make a PATH a glob pattern (when no file of that very name exists). */
const globCharacters = /[*?[\]{}]/

/** True when `given` reads as a glob pattern (it holds `*`, `?`, `[`, `]`, `{` or `}`). */
export function isGlobPattern(given: string): boolean {
  return globCharacters.test(given)
}

/** Folders a pattern never descends into. */
const ignoredFolders = ['**/node_modules/**', '**/.git/**']

/**
 * Validates several subjects in one run: each entry of `paths` is a manifest file, a plugin folder or an
 * artifact (detected from the disk), or a glob pattern (`plugins/*`, `dist/*.svcPlugin`) expanded in sorted
 * order. A subject that cannot be judged (missing, unreadable, not an artifact, a pattern matching nothing)
 * yields a failure with its error's code instead of a report; anything else thrown is a bug and propagates.
 * Results come in the order of `paths`, a pattern's matches in place of the pattern.
 */
export async function validatePaths(paths: readonly string[], options: ValidatePathOptions = {}): Promise<SubjectResult[]> {
  const cwd = options.cwd ?? process.cwd()
  const subjects: Array<string | SubjectResult> = []
  for (const given of paths) {
    if (!isGlobPattern(given) || (await exists(path.resolve(cwd, given)))) {
      subjects.push(given)
      continue
    }
    const matches = await expandPattern(given, cwd)
    if (matches.length === 0) {
      const error = new ValidationError('file-not-found', `No file or folder matches ${given}.`, {details: {path: given, pattern: true}})
      subjects.push({path: given, code: error.code, message: error.message, error})
    } else subjects.push(...matches)
  }
  const results: SubjectResult[] = []
  for (const subject of subjects) {
    throwIfCancelled(options.signal)
    results.push(typeof subject === 'string' ? await validateOne(subject, options) : subject)
  }
  return results
}

async function validateOne(given: string, options: ValidatePathOptions): Promise<SubjectResult> {
  try {
    return await validatePath({path: given}, options)
  } catch (error) {
    // A cancellation ends the whole run; any other refusal is this subject's result.
    if (!isSvcPluginError(error) || isCancellation(error)) throw error
    return {path: given, code: error.code, message: error.message, error}
  }
}

async function exists(absolute: string): Promise<boolean> {
  return access(absolute).then(
    () => true,
    () => false,
  )
}

/** A pattern's matches (files and folders), sorted; fast-glob is loaded only when a pattern is given. */
async function expandPattern(pattern: string, cwd: string): Promise<string[]> {
  const {default: glob} = await import('fast-glob')
  const matches = await glob(pattern, {cwd, onlyFiles: false, dot: false, followSymbolicLinks: false, ignore: ignoredFolders})
  return matches.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}
