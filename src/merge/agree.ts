import type {Entrypoint} from '../model/manifest.js'
import {MergeError} from './errors.js'
import type {MergeInput} from './inputs.js'
import {firstJsonDifference} from './json-diff.js'

/** Manifest members that legitimately differ between per-RID packages of one version. */
const perInputMembers = new Set(['entrypoints', 'files', 'signature'])

/**
 * The merge order: inputs sorted by their sorted RID lists. The output is built from the first
 * input's manifest and each shared file is taken from the first input holding it, so this order —
 * not the order the caller listed the files in — is what makes the output bytes reproducible.
 */
export function mergeOrder(inputs: readonly MergeInput[]): MergeInput[] {
  return [...inputs].sort((a, b) => compareRidLists(a.rids, b.rids))
}

function compareRidLists(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const left = a[index]!
    const right = b[index]!
    if (left !== right) return left < right ? -1 : 1
  }
  return a.length - b.length
}

/**
 * Refuses inputs that are not per-RID packages of one plugin version: a different id or version
 * (`identity-mismatch`), any other manifest difference outside `entrypoints`, `files` and
 * `signature` (`manifest-mismatch`, compared as parsed JSON), or a RID declared twice
 * (`duplicate-rid`, case-insensitively: two spellings of one RID cannot both be meant).
 */
export function checkInputsAgree(inputs: readonly MergeInput[]): void {
  const [first, ...rest] = inputs
  if (!first) return
  for (const other of rest) {
    for (const field of ['id', 'version'] as const) {
      if (other.manifest[field] !== first.manifest[field]) {
        throw new MergeError('identity-mismatch', `${other.file} is ${other.manifest.id} ${other.manifest.version}, but ${first.file} is ${first.manifest.id} ${first.manifest.version}: only packages of one plugin version merge.`, {
          details: {field, inputs: [first.file, other.file], values: [first.manifest[field], other.manifest[field]]},
        })
      }
    }
  }
  for (const other of rest) {
    const pointer = firstJsonDifference(sharedMembers(first), sharedMembers(other))
    if (pointer !== null) {
      throw new MergeError('manifest-mismatch', `The manifests of ${first.file} and ${other.file} differ at ${pointer}; apart from entrypoints, files and signature they must be identical.`, {
        details: {pointer, inputs: [first.file, other.file]},
      })
    }
  }
  const owners = new Map<string, MergeInput>()
  for (const input of inputs) {
    for (const rid of input.rids) {
      const key = rid.toLowerCase()
      const owner = owners.get(key)
      if (owner) {
        throw new MergeError('duplicate-rid', `RID ${rid} is declared by both ${owner.file} and ${input.file}; each RID must come from exactly one input.`, {
          details: {rid, inputs: [owner.file, input.file]},
        })
      }
      owners.set(key, input)
    }
  }
}

function sharedMembers(input: MergeInput): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input.manifest).filter(([key]) => !perInputMembers.has(key)))
}

/** The union of every input's `entrypoints`, keyed in RID order. */
export function mergeEntrypoints(inputs: readonly MergeInput[]): Record<string, Entrypoint> {
  const all = inputs.flatMap((input) => Object.entries(input.manifest.entrypoints))
  return Object.fromEntries(all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
