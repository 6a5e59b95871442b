import {constants} from 'node:fs'
import {appendFile} from 'node:fs/promises'
import {
  ValidationError,
  findRepositoryRoot,
  isGlobPattern,
  isSubjectFailure,
  isSvcPluginError,
  renderStepSummary,
  renderSubjects,
  subjectsTextLines,
  validatePath,
  validatePaths,
  warningLimit,
  type SubjectResult,
} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode, exitCodeFor, worstExitCode} from '../exit-codes.js'
import {UsageError} from '../failure.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Validate from '../validate.js'

/** The arguments and flags of `svc-plugin validate`, as oclif parsed them from the declarations of {@link Validate}. */
export type ValidateInput = CommandInput<typeof Validate>

/** `svc-plugin validate`: judges each subject, prints the report in the asked format and gives the exit status. */
export async function validateCommand({argv: paths, flags}: ValidateInput, context: ActionContext): Promise<ExitCode> {
  const {manifest, directory, artifact, level, format: formatFlag, json, quiet, rid, protocol, root, 'host-version': hostVersion} = flags
  if (json && formatFlag !== undefined && formatFlag !== 'json') throw new UsageError(`--json conflicts with --format ${formatFlag}.`)
  const format = json ? 'json' : (formatFlag ?? (process.env.GITHUB_ACTIONS === 'true' ? 'github' : 'text'))
  // An error thrown below (missing file, two subjects) is printed as JSON too when JSON was asked for.
  if (format === 'json') context.reportFailuresAsJson()
  const host = {...(rid === undefined ? {} : {rid}), ...(hostVersion === undefined ? {} : {hostVersion}), ...(protocol === undefined ? {} : {protocol})}
  const options = {...(level === undefined ? {} : {level}), host, signal: commandSignal()}
  // One subject named once keeps the one-report document; several PATHs or a pattern report every subject.
  const single = paths.length <= 1 && !paths.some(isGlobPattern)
  let subjects: SubjectResult[]
  if (single) {
    try {
      subjects = [await validatePath({manifest, directory, artifact, path: paths[0]}, options)]
    } catch (error) {
      // The text and JSON forms report an unreadable subject as any command reports its error; the
      // CI formats still print a whole document, which the CI step uploads.
      if (!isSvcPluginError(error) || format === 'text' || format === 'json' || exitCodeFor(error) !== ExitCode.unreadable) throw error
      subjects = [{path: paths[0] ?? manifest ?? directory ?? artifact ?? 'manifest.json', code: error.code, message: error.message, error}]
    }
  } else {
    const selectors = (['manifest', 'directory', 'artifact'] as const).filter((key) => flags[key] !== undefined)
    if (selectors.length > 0) throw new ValidationError('too-many-selectors', `Choose one way to name the subjects; got PATH arguments and ${selectors.map((key) => `--${key}`).join(' and ')}.`, {details: {selectors: ['path', ...selectors]}})
    subjects = await validatePaths(paths, options)
  }
  const maxWarnings = flags['max-warnings'] ?? -1
  const renderOptions = {errorsOnly: quiet, toolVersion: context.version, codePages: context.codePages ?? null, root: root ?? findRepositoryRoot(process.cwd()) ?? process.cwd(), single, maxWarnings}
  // Text goes out as lines, which the output escapes and colours; every other format is a document its
  // renderer escaped for that format.
  if (format === 'text') context.output.outAlways(subjectsTextLines(subjects, renderOptions))
  else context.output.outDocument(renderSubjects(subjects, format, renderOptions))
  const summaryFile = process.env.GITHUB_STEP_SUMMARY
  if (format === 'github' && summaryFile !== undefined && summaryFile !== '') {
    // Non-blocking: a FIFO nobody reads (or stops reading) fails at once (ENXIO, EAGAIN) instead of holding a
    // thread of the pool for ever, which keeps the process from ending even on Ctrl-C or SIGTERM.
    const flag = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK
    await appendFile(summaryFile, renderStepSummary(subjects, renderOptions), {flag}).catch((error: unknown) => {
      context.output.note(`warning: could not append the summary to ${summaryFile}: ${error instanceof Error ? error.message : String(error)}`)
    })
  }
  const statuses = subjects.map((subject) => (isSubjectFailure(subject) ? exitCodeFor(subject.error) : subject.valid ? ExitCode.success : ExitCode.invalid))
  // Warnings over --max-warnings fail the run as an error would (1), as ESLint's flag of that name does.
  if (warningLimit(subjects, maxWarnings)?.exceeded === true) statuses.push(ExitCode.invalid)
  return worstExitCode(statuses)
}
