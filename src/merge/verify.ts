import {createHash} from 'node:crypto'
import type {Readable} from 'node:stream'
import {isArchiveError} from '../archive/errors.js'
import {throwIfCancelled} from '../cancellation.js'
import type {WriterSource} from '../archive/writer.js'
import {hashMismatch, type MergeInput} from './inputs.js'
import type {PlannedFile} from './plan.js'

/**
 * Streams every payload entry of every input that is NOT the copy the merged archive is written
 * from, checking it against its input's own `files[]` (`hash-mismatch` on the first difference).
 * The written copies are checked by the writer as they stream (see {@link plannedSource}), so every
 * payload byte of every input is read exactly once and nothing is extracted to disk. Once `signal` is
 * aborted, the next entry is not read (its `AbortError` instead).
 */
export async function verifyOtherCopies(inputs: readonly MergeInput[], planned: readonly PlannedFile[], signal?: AbortSignal): Promise<void> {
  const written = new Set(planned.map((file) => file.entry))
  for (const input of inputs) {
    for (const entry of input.payload) {
      if (written.has(entry)) continue
      throwIfCancelled(signal)
      const declared = input.declared.get(entry.name)!
      const real = await digest(await input.archive.openEntry(entry))
      if (real.size !== declared.size || real.sha256 !== declared.sha256) {
        throw hashMismatch(input.file, entry.name, real.size === declared.size ? 'file-digest-mismatch' : 'file-size-mismatch', `${input.file}: the bytes of ${entry.name} do not match what its files[] declares.`, {
          expected: {size: declared.size, sha256: declared.sha256},
          actual: real,
        })
      }
    }
  }
}

/**
 * The writer source of a planned file: its entry, streamed from its input when the writer asks,
 * held by the writer to the size and digest the input's `files[]` declares.
 */
export function plannedSource(file: PlannedFile): WriterSource {
  return {kind: 'stream', open: () => file.source.archive.openEntry(file.entry), size: file.size, sha256: file.sha256}
}

/**
 * Turns the writer's complaint that a planned file's bytes differ from their declared digest into
 * the `hash-mismatch` of the input it came from; any other error is returned unchanged.
 */
export function asHashMismatch(error: unknown, planned: readonly PlannedFile[]): unknown {
  if (!isArchiveError(error, 'source-changed')) return error
  const file = planned.find((candidate) => candidate.name === error.details.entry)
  if (!file) return error
  const reason = error.details.reason === 'size-changed' ? 'file-size-mismatch' : 'file-digest-mismatch'
  return hashMismatch(file.source.file, file.name, reason, `${file.source.file}: the bytes of ${file.name} do not match what its files[] declares.`, {}, error)
}

async function digest(stream: Readable): Promise<{size: number; sha256: string}> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk)
    size += chunk.length
  }
  return {size, sha256: `sha256:${hash.digest('hex')}`}
}
