import {SvcPluginError} from '../errors.js'

/**
 * Every code a revocation-list function can throw. A list is an input of the verifier, like the trust
 * store: a list that cannot be used says nothing about an artifact, so its problems are errors, not
 * verdicts (the one verdict revocation adds is `Revoked`, code `revoked`, in the verification result).
 */
export type RevocationErrorCode =
  /** revocations.json or revocations.sig is missing or cannot be read. */
  | 'revocation-list-unreadable'
  /** The list is not a root-signed revocation list: bad signature, unknown root, not strict JSON, wrong shape. */
  | 'revocation-list-invalid'
  /** The list's `nextUpdate` has passed and stale lists were not allowed. */
  | 'revocation-list-stale'
  /** The list's sequence is lower than one this data root has seen, or equal with other bytes. */
  | 'revocation-list-rollback'
  /** What is to be revoked is already revoked at least as strictly. */
  | 'already-revoked'
  /** A revocation target or reason is not in its format (a certificate id, a `sha256:` digest, the reason vocabulary), or an artifact to revoke is unsigned. */
  | 'invalid-revocation'
  /** `issuedAt`, `nextUpdate` or `revokedAt` is not `YYYY-MM-DDTHH:MM:SSZ`, or `nextUpdate` is not after `issuedAt`. */
  | 'invalid-validity'
  /** A root key id does not match `^root_[0-9a-z]{4,32}$`, is missing for a new list, or is not the list's. */
  | 'invalid-root-key-id'

/** Thrown by the revocation-list functions (`src/signing/revocation*.ts`); callers branch on `code`. */
export class RevocationError extends SvcPluginError<RevocationErrorCode> {}
