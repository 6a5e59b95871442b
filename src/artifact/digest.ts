import {createHash} from 'node:crypto'
import {compareEntryNames} from '../archive/names.js'
import type {EntryDigest} from '../archive/types.js'
import {SigningError} from '../pki/errors.js'
import {parseTimestamp} from '../pki/timestamp.js'

/** What the canonical artifact digest covers: the unsigned manifest U and every other archive entry. */
export interface ArtifactDigestInput {
  /** U: the manifest with the signature trailer removed and `}` appended. */
  unsignedManifest: Uint8Array
  /** Every archive entry except manifest.json (certificate.* and issuer.* included), by name. */
  files: ReadonlyMap<string, Pick<EntryDigest, 'size' | 'sha256'>>
}

/** The canonical digest text P and the hex SHA-256 of it. */
export interface ArtifactDigest {
  /** P, the exact text whose SHA-256 is signed. */
  text: string
  /** 64 lowercase hex digits of SHA-256(P). */
  sha256: string
}

const digestShape = /^sha256:[0-9a-f]{64}$/
// Entry names never hold control characters; a newline would make P ambiguous.
const unsafeInLine = /[\u0000-\u001f\u007f]/

/** Lowercase hex SHA-256 of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}


/**
 * Builds P, one `\n`-terminated line each:
 * `svc-plugin-artifact/1`, `manifest sha256:<hex> <length of U>`, one `file sha256:<hex> <size> <path>`
 * per entry sorted by the UTF-8 bytes of the path, `end <number of file lines>`.
 */
export function computeArtifactDigest(input: ArtifactDigestInput): ArtifactDigest {
  // P's file lines follow the UTF-8 byte order of the path, the archive writer's order.
  const names = [...input.files.keys()].sort(compareEntryNames)
  const lines = ['svc-plugin-artifact/1', `manifest sha256:${sha256Hex(input.unsignedManifest)} ${input.unsignedManifest.length}`]
  for (const name of names) {
    const {size, sha256} = input.files.get(name) as EntryDigest
    if (name === '' || unsafeInLine.test(name)) throw new SigningError('invalid-digest-input', `The entry name ${JSON.stringify(name)} cannot appear in the artifact digest.`)
    if (!digestShape.test(sha256) || !Number.isSafeInteger(size) || size < 0) throw new SigningError('invalid-digest-input', `The digest of ${name} is not "sha256:<64 hex>" with a byte size.`)
    lines.push(`file ${sha256} ${size} ${name}`)
  }
  lines.push(`end ${names.length}`)
  const text = `${lines.join('\n')}\n`
  return {text, sha256: sha256Hex(Buffer.from(text, 'utf8'))}
}

/** The exact text an artifact signature covers, each line `\n`-terminated. */
export function signatureMessage(fields: {keyId: string; signedAt: string; artifactDigestHex: string}): string {
  return ['svc-plugin-signature/1', 'algorithm ed25519', `key-id ${fields.keyId}`, `signed-at ${fields.signedAt}`, `artifact-digest sha256:${fields.artifactDigestHex}`, ''].join('\n')
}

/** The fields of an artifact signature statement. */
export interface SignatureStatement {
  keyId: string
  signedAt: string
  /** 64 lowercase hex digits. */
  artifactDigestHex: string
}

const statementShape = /^svc-plugin-signature\/1\nalgorithm ed25519\nkey-id (cert_[0-9a-f]{32})\nsigned-at ([0-9TZ:-]{20})\nartifact-digest sha256:([0-9a-f]{64})\n$/

/** The fields of `bytes` when they are exactly a {@link signatureMessage} (a valid signing time included), or null. */
export function parseSignatureMessage(bytes: Uint8Array): SignatureStatement | null {
  const match = statementShape.exec(Buffer.from(bytes).toString('latin1'))
  if (match === null) return null
  const [, keyId, signedAt, artifactDigestHex] = match as unknown as [string, string, string, string]
  return parseTimestamp(signedAt) === null ? null : {keyId, signedAt, artifactDigestHex}
}
