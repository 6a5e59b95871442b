import path from 'node:path'
import {throwIfCancelled} from '../cancellation.js'
import {checkOutputFree, withOutputs} from '../fs/output.js'
import {resolveLimits} from '../archive/limits.js'
import type {ArchiveLimits} from '../archive/types.js'
import {writeArchive, type WriterEntry} from '../archive/writer.js'
import type {PackageContent} from '../manifest/content.js'
import {validateManifest} from '../manifest/validate.js'
import {entryNameOf} from '../model/entry-name.js'
import {renderPackedManifest} from '../manifest/packed-manifest.js'
import {checkInputsAgree, mergeEntrypoints, mergeOrder} from './agree.js'
import {MergeError} from './errors.js'
import {openMergeInput, type MergeInput} from './inputs.js'
import {checkRidDirectories, unionPayload, type PlannedFile} from './plan.js'
import {asHashMismatch, plannedSource, verifyOtherCopies} from './verify.js'

/** Options of {@link merge}. */
export interface MergeOptions {
  /** Path of the merged artifact. */
  output: string
  /** Replace an existing output file. */
  force?: boolean
  /** Archive limits for reading the inputs and for the merged artifact. */
  limits?: Partial<ArchiveLimits>
  /**
   * Cancels the merge: it rejects with an error named `AbortError` (code `cancelled`, the signal's reason as
   * its `cause`) and leaves neither the output, nor a temporary file, nor a folder it created.
   */
  signal?: AbortSignal
}

/** What `merge` wrote. */
export interface MergeResult {
  /** The merged artifact (absolute). */
  path: string
  id: string
  version: string
  /** Every RID of the merged `entrypoints`, sorted. */
  rids: string[]
  /** Archive entries, `manifest.json` included. */
  entries: number
  /** Uncompressed bytes of every entry, `manifest.json` included. */
  uncompressedBytes: number
  /** SHA-256 of the artifact file (hex). */
  sha256: string
  /** Size of the artifact file. */
  bytes: number
  /** Inputs whose signature and signing files were dropped: the merged artifact is always unsigned. */
  droppedSignatures: string[]
}

/**
 * Merges per-RID packages of one plugin version into one unsigned artifact. Every input is read
 * through the strict reader and every payload byte is checked against its own `files[]` while it
 * streams, once. The inputs must agree on everything but `entrypoints`, `files` and `signature`,
 * declare disjoint RIDs and hold identical bytes wherever their paths meet. The output is the
 * first input's manifest (in RID order) with the union of `entrypoints` and a recomputed `files[]`,
 * written deterministically: the same inputs in any order give the same bytes.
 * Throws {@link MergeError} or the reader's ArchiveError; nothing is left behind unless every check passed
 * (nor when `signal` cancels it).
 */
export async function merge(inputs: readonly string[], options: MergeOptions): Promise<MergeResult> {
  if (inputs.length < 2) {
    throw new MergeError('merge-needs-two', `merge needs at least two artifacts, got ${inputs.length}.`, {details: {inputs: [...inputs]}})
  }
  const {signal} = options
  throwIfCancelled(signal)
  const limits = resolveLimits(options.limits)
  await checkOutputFree(options.output, {replace: options.force === true, advice: 'pass --force to replace it'})
  const output = path.resolve(options.output)

  // The output's folder is made, and proven writable, before an input is read: an output that cannot be
  // written is refused at once, and a refusal at any later point removes what was made.
  return withOutputs(async (outputs) => {
    await outputs.prepare(output)
    const opened: MergeInput[] = []
    try {
      for (const file of inputs) opened.push(await openMergeInput(file, limits, signal))
      return await mergeOpened(opened, output, limits, {overwrite: options.force === true, signal})
    } finally {
      await Promise.allSettled(opened.map((input) => input.archive.close()))
    }
  })
}

/** Checks the opened inputs against each other and writes the merged artifact to `output`. */
async function mergeOpened(opened: readonly MergeInput[], output: string, limits: ArchiveLimits, {overwrite, signal}: {overwrite: boolean; signal: AbortSignal | undefined}): Promise<MergeResult> {
  const ordered = mergeOrder(opened)
  checkInputsAgree(ordered)
  const planned = unionPayload(ordered)
  const first = ordered[0]!
  const entrypoints = mergeEntrypoints(ordered)
  const files = planned.map((file) => ({path: file.name, sha256: file.sha256, size: file.size}))
  const manifestBytes = Buffer.from(renderPackedManifest({...first.manifest, entrypoints}, {files}), 'utf8')
  checkMergedManifest(manifestBytes, planned, output)
  checkRidDirectories(ordered)
  await verifyOtherCopies(ordered, planned, signal)

  const executables = new Set(Object.values(entrypoints).map((entrypoint) => entryNameOf(entrypoint.executable)))
  const entries: WriterEntry[] = [
    {name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: manifestBytes}},
    ...planned.map((file): WriterEntry => ({
      name: file.name,
      mode: executables.has(file.name) ? 0o755 : 0o644,
      // The input's storage decision carries over: same bytes, same choice.
      store: file.entry.method === 0,
      source: plannedSource(file),
    })),
  ]
  // The writer checks the limits before it reads a byte and the archive size after,
  // writes beside the output and renames: a refusal at any point leaves nothing behind.
  const written = await writeArchive(output, entries, {limits, overwrite, signal}).catch((error: unknown) => {
    throw asHashMismatch(error, planned)
  })
  return {
    path: output,
    id: first.manifest.id,
    version: first.manifest.version,
    rids: Object.keys(entrypoints),
    entries: entries.length,
    uncompressedBytes: planned.reduce((sum, file) => sum + file.size, manifestBytes.length),
    sha256: written.sha256,
    bytes: written.bytes,
    droppedSignatures: ordered.filter((input) => input.signed).map((input) => input.file),
  }
}

/** The merged manifest must be valid at package level over the merged payload (layout, executables present). */
function checkMergedManifest(manifestBytes: Uint8Array, planned: readonly PlannedFile[], output: string): void {
  const content: PackageContent = {kind: 'artifact', files: new Map(planned.map((file) => [file.name, {size: file.size, sha256: file.sha256}]))}
  const report = validateManifest(manifestBytes, {level: 'package', file: `${output}!manifest.json`, subjectKind: 'artifact', subjectPath: output, content})
  if (!report.valid) {
    const codes = [...new Set(report.problems.filter((problem) => problem.severity === 'error').map((problem) => problem.code))]
    throw new MergeError('manifest-invalid', `The merged manifest would not be valid at package level (${codes.join(', ')}); the inputs do not combine into one package.`, {
      details: {input: null, codes},
      report,
    })
  }
}
