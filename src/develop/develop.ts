import {randomBytes} from 'node:crypto'
import {lstatSync} from 'node:fs'
import {rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {classifyInput, wrongInput} from '../artifact/input-kind.js'
import {ignoreFileName, readPackageFileRule, type PackageFileRule} from '../artifact/package-files.js'
import {isSvcPluginError, type SvcPluginError} from '../errors.js'
import {DevelopError} from './errors.js'
import {OutputScope} from '../fs/output.js'
import {watchTree} from '../fs/watch-tree.js'
import {install} from '../install/install.js'
import type {InstallResult} from '../install/types.js'
import type {InstallWarning, InstallWarningCode} from '../install/warnings.js'
import type {ValidationReport} from '../manifest/report.js'
import {developmentHostVersion} from '../model/compatibility.js'
import {pack} from '../pack/pack.js'
import {validatePath} from '../validate/validate-path.js'
import {ChangeQueue} from './changes.js'

/** Options of {@link developPlugin}. Only `dataRoot` is required. */
export interface DevelopOptions {
  /** The host's data directory the development build is installed into. */
  dataRoot: string
  /** Ends the loop: the round under way finishes (the data root is left settled, its lock released), then it resolves. */
  signal?: AbortSignal
  /** Awaited after every round, with what it did. */
  onRound?: (round: DevelopRound) => Promise<void> | void
  /** Run one round and resolve, without watching. */
  once?: boolean
  /** How long the folder must be quiet after a change before a round starts, in milliseconds (default 150). */
  quietMs?: number
  /** The host's runtime identifier (default this machine's). */
  hostRid?: string
}

/** A version the loop installed, which stays installed while the folder is invalid. */
export interface DevelopedVersion {
  id: string
  version: string
}

/** What every round tells. */
interface RoundBase {
  /** The paths (relative, `/`-separated) whose changes started this round, sorted; empty for the first round. */
  changed: string[]
  /** The package-level validation of the folder; null when there was nothing to judge (no readable manifest). */
  report: ValidationReport | null
  /** From the start of the round to its end. */
  durationMs: number
}

/** A round that installed the folder as a development build. */
export interface DevelopInstalled extends RoundBase {
  outcome: 'installed'
  id: string
  version: string
  install: InstallResult
  /** The install's warnings, but those every development build has (unsigned, host version unchecked). */
  warnings: InstallWarning[]
}

/** A round whose folder did not validate: the last good version stays installed. */
export interface DevelopInvalid extends RoundBase {
  outcome: 'invalid'
  report: ValidationReport
  /** The number of errors of the report. */
  errors: number
  /** The version that stays installed, null when the loop has installed none yet. */
  kept: DevelopedVersion | null
}

/** A round refused for another reason (the manifest unreadable, pack or install refusing): the last good version stays. */
export interface DevelopRefused extends RoundBase {
  outcome: 'refused'
  error: SvcPluginError
  kept: DevelopedVersion | null
}

/** What one round of {@link developPlugin} did. */
export type DevelopRound = DevelopInstalled | DevelopInvalid | DevelopRefused

/** What {@link developPlugin} did, once it ends. */
export interface DevelopSummary {
  rounds: number
  /** The last version installed, null when none was. */
  installed: DevelopedVersion | null
  /** The last round. */
  last: DevelopRound | null
}

/** The warnings that a development build (unsigned, on host version `0.0.0-dev`) always has. */
const developmentWarnings: ReadonlySet<InstallWarningCode> = new Set(['artifact-unsigned', 'svc-compatibility-unchecked'])

/** What the rounds of one loop share. */
interface Loop {
  readonly root: string
  readonly options: DevelopOptions
  readonly artifact: string
  installed: DevelopedVersion | null
}

/**
 * The development loop: installs the plugin folder `folder` into `options.dataRoot` as a development build
 * (forced over the same version, unsigned allowed, new permissions accepted, host version `0.0.0-dev`) now and after every change,
 * so that a host watching its data root picks it up. Each round validates the folder at package level and
 * installs it only when it is valid; an invalid folder leaves the last good version installed. Changes are
 * those of the package's files (what `.svcpluginignore` leaves out, `.git/` and a data root inside the folder
 * are not watched); a burst of them is one round (see `quietMs`). Resolves when `signal` is aborted (after
 * the round under way), or after one round with `once`. Throws before the first round for a folder that is
 * not one (`file-not-found`, `not-a-folder`) or a data root inside it that pack would pack
 * (`data-root-inside-plugin`); a refusal during a round is that round's outcome, not a throw.
 */
export async function developPlugin(folder: string, options: DevelopOptions): Promise<DevelopSummary> {
  const root = path.resolve(folder)
  const found = await classifyInput(root, folder)
  if (found !== 'folder') throw wrongInput(folder, found, 'folder', '')
  const insideDataRoot = dataRootWithin(root, path.resolve(options.dataRoot))
  let rule = await readPackageFileRule(root)
  if (insideDataRoot !== null && (insideDataRoot === '.' || rule(`${insideDataRoot}/`) === 'packed')) {
    throw new DevelopError('data-root-inside-plugin', `The data root ${options.dataRoot} is inside the plugin folder ${folder}, and pack would pack it.`, {
      details: {dataRoot: options.dataRoot, folder, ignoreLine: `${insideDataRoot}/`},
    })
  }
  const outputs = new OutputScope()
  const temporary = path.join(tmpdir(), `svc-plugin-develop-${process.pid}-${randomBytes(6).toString('hex')}`)
  await outputs.folder(temporary)
  const loop: Loop = {root, options, artifact: path.join(temporary, 'development.svcPlugin'), installed: null}
  const summary: DevelopSummary = {rounds: 0, installed: null, last: null}
  const round = async (changed: string[]): Promise<void> => {
    const done = await developRound(loop, changed)
    summary.rounds += 1
    summary.last = done
    summary.installed = loop.installed
    await options.onRound?.(done)
  }
  try {
    if (options.once === true) await round([])
    else {
      const relevant = (relative: string | null): boolean => relative === null || isWatched(root, relative, rule, insideDataRoot)
      await watchAndRound(root, options, relevant, round, async () => (rule = await readPackageFileRule(root)))
    }
  } finally {
    await outputs.discard()
  }
  return summary
}

/**
 * Runs the first round, then one round per burst of relevant changes until the signal is aborted;
 * `reread` is called before a round that follows a change of the ignore file.
 */
async function watchAndRound(
  root: string,
  options: DevelopOptions,
  relevant: (relative: string | null) => boolean,
  round: (changed: string[]) => Promise<void>,
  reread: () => Promise<unknown>,
): Promise<void> {
  const queue = new ChangeQueue(options.quietMs ?? 150, options.signal)
  const onChange = (relative: string | null): void => {
    if (relevant(relative)) queue.add(relative)
  }
  const watcher = watchTree(root, onChange, {
    skipFolder: (relative) => !relevant(`${relative}/`),
    ...(options.signal === undefined ? {} : {signal: options.signal}),
  })
  try {
    await watcher.ready()
    await round([])
    for (let changed = await queue.next(); changed !== null; changed = await queue.next()) {
      if (changed.includes(ignoreFileName)) await reread()
      await round(changed)
    }
  } finally {
    watcher.close()
  }
}

/** One round: validate at package level, and when valid pack into the loop's temporary artifact and install it. */
async function developRound(loop: Loop, changed: string[]): Promise<DevelopRound> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const host = loop.options.hostRid === undefined ? {} : {rid: loop.options.hostRid}
  let report: ValidationReport | null = null
  try {
    report = await validatePath({directory: loop.root}, {level: 'package', host})
    if (!report.valid) {
      const errors = report.problems.filter((problem) => problem.severity === 'error').length
      return {outcome: 'invalid', changed, report, durationMs: elapsed(), errors, kept: loop.installed}
    }
    await pack(loop.root, {output: loop.artifact, force: true})
    const result = await install(loop.artifact, {
      dataRoot: loop.options.dataRoot,
      force: true,
      allowUnsigned: true,
      // A development build of the author's own folder: what it newly asks for is accepted.
      consent: () => true,
      hostVersion: developmentHostVersion,
      ...(loop.options.hostRid === undefined ? {} : {hostRid: loop.options.hostRid}),
    })
    loop.installed = {id: result.id, version: result.version}
    const warnings = result.warnings.filter((warning) => !developmentWarnings.has(warning.code))
    return {outcome: 'installed', changed, report, durationMs: elapsed(), id: result.id, version: result.version, install: result, warnings}
  } catch (error) {
    if (!isSvcPluginError(error)) throw error
    return {outcome: 'refused', changed, report, durationMs: elapsed(), error, kept: loop.installed}
  } finally {
    await rm(loop.artifact, {force: true})
  }
}

/** The data root's path relative to `root` (`/`-separated; `.` for the folder itself) when it is inside the plugin folder, else null. */
function dataRootWithin(root: string, dataRoot: string): string | null {
  const relative = path.relative(root, dataRoot)
  if (relative === '') return '.'
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null
  return relative.split(path.sep).join('/')
}

/**
 * True when a change to `relative` (a folder's path may end in `/`) can change the package: the manifest,
 * the ignore file, or a path pack would pack; never the data root inside the folder.
 */
function isWatched(root: string, relative: string, rule: PackageFileRule, dataRoot: string | null): boolean {
  const bare = relative.endsWith('/') ? relative.slice(0, -1) : relative
  if (dataRoot !== null && (bare === dataRoot || bare.startsWith(`${dataRoot}/`))) return false
  if (bare === 'manifest.json' || bare === ignoreFileName || bare === '.') return true
  const folder = relative.endsWith('/') || isFolder(path.join(root, ...bare.split('/')))
  return rule(folder ? `${bare}/` : bare) === 'packed'
}

/** True when `file` is a folder now (a change event does not say). */
function isFolder(file: string): boolean {
  try {
    return lstatSync(file).isDirectory()
  } catch {
    return false
  }
}
