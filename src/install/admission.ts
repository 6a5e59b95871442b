import type {EntryDigest} from '../archive/types.js'
import type {VerificationResult} from '../signing/result.js'
import type {RevocationList} from '../revocation/list.js'
import type {TrustStore} from '../pki/trust.js'
import {verifyContents} from '../signing/verify.js'
import {InstallError} from './errors.js'
import {pinnedPublisherOf, type AdmittedVerdict, type PinnedPublisher} from './trust-record.js'
import {warning, type InstallWarning} from './warnings.js'

/** How an artifact's signature lets it in. */
export interface Admission {
  verdict: AdmittedVerdict
  certificateId: string | null
  /** The signing certificate's subject, for a Trusted admission. */
  publisher: PinnedPublisher | null
  warnings: InstallWarning[]
}

/** What the signature check reads: the manifest's bytes, every other entry's digest, and a way to read small files. */
export interface SignedContents {
  manifestBytes: Uint8Array
  /** Every entry except `manifest.json`, with its real size and digest. */
  files: ReadonlyMap<string, EntryDigest>
  readFile(name: string): Promise<Uint8Array | null>
}

/** Runs the signature checklist (DESIGN §7.4) over bytes already on disk and digests already computed. */
export async function verifySignature(
  contents: SignedContents,
  options: {trust?: TrustStore; now?: Date; maxManifestBytes?: number; revocations?: RevocationList; allowStaleRevocations?: boolean},
): Promise<VerificationResult> {
  return verifyContents(
    {manifestBytes: contents.manifestBytes, files: contents.files, readFile: (name) => contents.readFile(name)},
    {
      trust: options.trust ?? {roots: []},
      now: options.now,
      maxManifestBytes: options.maxManifestBytes,
      revocations: options.revocations,
      allowStaleRevocations: options.allowStaleRevocations,
    },
  )
}

/**
 * Turns a verdict into an admission (DESIGN §8): Trusted is admitted; Unsigned only when the caller allows
 * it (`unsigned-not-permitted` otherwise; warning `artifact-unsigned` when allowed); every other verdict
 * throws `signature-rejected` with the verdict and the deciding verification code as `reason`.
 */
export function admit(result: VerificationResult, options: {allowUnsigned?: boolean; subject: string}): Admission {
  switch (result.verdict) {
    case 'Trusted':
      return {verdict: 'Trusted', certificateId: result.certificateId, publisher: pinnedPublisherOf(result.certificate?.subject), warnings: []}
    case 'Unsigned':
      if (options.allowUnsigned !== true) {
        throw new InstallError('unsigned-not-permitted', `${options.subject} is not signed; installing it needs allowUnsigned.`, {
          details: {verdict: result.verdict},
        })
      }
      return {verdict: 'Unsigned', certificateId: null, publisher: null, warnings: [warning('artifact-unsigned', `${options.subject} is not signed; it was installed because unsigned artifacts were allowed.`)]}
    default: {
      const deciding = result.problems[0]
      throw new InstallError(
        'signature-rejected',
        `${options.subject} was refused: ${result.verdict}${deciding === undefined ? '' : ` (${deciding.code}: ${deciding.message})`}`,
        {details: {verdict: result.verdict, reason: deciding?.code ?? null, certificateId: result.certificateId, problems: result.problems}},
      )
    }
  }
}
