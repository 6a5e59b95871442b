import {SigningError} from '../pki/errors.js'
import {readTrustStore, type TrustStore} from '../pki/trust.js'
import {RevocationError} from '../revocation/errors.js'
import {readRevocationList} from '../revocation/files.js'
import type {RevocationList} from '../revocation/list.js'

/**
 * Where a verification's trust store and revocation list come from: each given as the value or as the file
 * to read it from, never both. The trust store is required in one of its forms; the revocation list is not.
 */
export type TrustSources = TrustStoreSource & RevocationListSource

/** The roots a signature must chain to, as the value (`trust`) or as its file (`trustFile`). */
export type TrustStoreSource =
  | {
      /** The roots a signature must chain to. */
      trust: TrustStore
      trustFile?: never
    }
  | {
      /** The trust store's file (`trust-store-unreadable` when it cannot be read). */
      trustFile: string
      trust?: never
    }

/** A root-signed revocation list to apply, as the value (`revocations`) or as its file (`revocationsFile`), or neither. */
export type RevocationListSource =
  | {
      /** A root-signed revocation list to apply. */
      revocations?: RevocationList
      revocationsFile?: never
    }
  | {
      /** The revocation list's file, read with the `.sig` beside it (`revocation-list-unreadable` when it cannot be). */
      revocationsFile?: string
      revocations?: never
    }

/**
 * The trust store and the revocation list `sources` name, each read from its file when given as one.
 * `trust-store-invalid` when the trust store is given in neither form or in both, `revocation-list-invalid`
 * when the revocation list is given in both.
 */
export async function readTrustSources(sources: TrustSources): Promise<{trust: TrustStore; revocations?: RevocationList}> {
  const {trust, trustFile, revocations, revocationsFile} = sources
  if ((trust === undefined) === (trustFile === undefined)) {
    throw new SigningError('trust-store-invalid', 'Give the trust store either as its value (trust) or as its file (trustFile), one of them.')
  }
  if (revocations !== undefined && revocationsFile !== undefined) {
    throw new RevocationError('revocation-list-invalid', 'Give the revocation list either as its value (revocations) or as its file (revocationsFile), not both.')
  }
  const list = revocations ?? (revocationsFile === undefined ? undefined : await readRevocationList(revocationsFile))
  return {trust: trust ?? (await readTrustStore(trustFile as string)), ...(list === undefined ? {} : {revocations: list})}
}
