import {SvcPluginError} from '../errors.js'
import type {FileProblemCode} from '../model/file-problems.js'

/** Every code a signing-layer function can throw (keys, certificates, trust stores, `sign`). */
export type SigningErrorCode =
  /** A key pair name is not a plain file name. */
  | 'invalid-key-name'
  /** A key file is missing, unreadable or not one line of base64 of 32 bytes. */
  | 'key-unreadable'
  /** A public key is not a strict Ed25519 key (non-canonical, identity, small-order component). */
  | 'key-invalid'
  /** The private key does not belong to the certificate (or the issuer certificate) it is used with. */
  | 'key-mismatch'
  /** The signer's files are contradictory or incomplete: root key and issuer both or neither, an issuer file without the others. */
  | 'invalid-signer'
  /** A trust store file is missing, unreadable or not `{ "roots": [ { "rootKeyId", "publicKey" } ] }`. */
  | 'trust-store-unreadable'
  /** An in-memory trust store handed to the library does not have the trust store shape. */
  | 'trust-store-invalid'
  /** A certificate or its signature file cannot be read, or not as a strict JSON object / base64 text. */
  | 'certificate-unreadable'
  /** The issuer's signature over the certificate does not verify. */
  | 'certificate-untrusted'
  /** A certificate's bytes are not a certificate (docs/signing.md). */
  | 'certificate-malformed'
  /** A certificate used to sign or issue has the wrong key usage. */
  | 'certificate-wrong-purpose'
  /** The certificate names an issuer certificate that was not supplied. */
  | 'certificate-issuer-missing'
  /** The issuer certificate is not the one the certificate names, or the root key ids differ. */
  | 'certificate-issuer-mismatch'
  /** A certificate's validity would not lie inside its issuer's. */
  | 'certificate-outlives-issuer'
  /** An issuer certificate cannot issue another issuer certificate (chain length at most root → issuer → certificate). */
  | 'chain-too-long'
  /** The certificate's validity starts after the signing time. */
  | 'certificate-not-yet-valid'
  /** The certificate's validity ended before the signing time. */
  | 'certificate-expired'
  /** Certificate or signature times are not `YYYY-MM-DDTHH:MM:SSZ`, or notBefore is after notAfter. */
  | 'invalid-validity'
  /** A root key id does not match `^root_[0-9a-z]{4,32}$`. */
  | 'invalid-root-key-id'
  /** A certificate to issue pairs a subject kind with another key usage than its own (creator and organization: package; service: registry; issuer: issuer). */
  | 'invalid-key-usage'
  /** `sign` was given an artifact that already carries a signature or certificate files. */
  | 'already-signed'
  /** The artifact has no manifest.json. */
  | 'manifest-missing'
  /** The artifact's manifest.json is not a strict JSON object, or its `files` member is not a list of `{path, sha256, size}`. */
  | 'manifest-malformed'
  /** The artifact's `files[]` does not list exactly its payload with the right sizes and digests: the code says how. */
  | FileProblemCode
  /** A signature block value cannot be written into the signature trailer. */
  | 'signature-malformed'
  /** An entry name or digest handed to the artifact digest cannot be written into P. */
  | 'invalid-digest-input'
  /** The manifest names a publisher id that is not the certificate subject's (creator and organization certificates). */
  | 'publisher-mismatch'
  /** The artifact `sign` wrote did not verify; the output was removed. */
  | 'self-verification-failed'
  /** A signature handed back by a signer (a vault, a command, a file) does not verify with the key it should be by. */
  | 'signature-invalid'
  /** A signing command could not start, failed, or did not print a signature. */
  | 'signer-failed'
  /** A prepared statement cannot be read, or is not a statement of the operation completing it. */
  | 'statement-malformed'
  /** A prepared statement is not the one this operation would sign (another artifact, key or certificate, a list changed since). */
  | 'statement-mismatch'
  /** A signature file cannot be read, or does not hold 64 raw bytes or one line of base64 of 64 bytes. */
  | 'signature-unreadable'

/** Thrown by the signing layer; callers branch on `code`. */
export class SigningError extends SvcPluginError<SigningErrorCode> {}
