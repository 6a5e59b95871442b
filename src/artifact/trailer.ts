import {parseTree} from 'jsonc-parser'
import {readJsonDocument, type ReadJsonResult} from '../json/strict-json.js'
import {decodeBase64} from '../pki/base64.js'
import {certificateIdPattern} from '../pki/certificate.js'
import {signatureLength} from '../pki/ed25519.js'
import {SigningError} from '../pki/errors.js'
import {isTimestamp} from '../pki/timestamp.js'

/** The four values of a signature block, exactly as the trailer carries them. */
export interface SignatureFields {
  algorithm: string
  /** The certificate id of the signing certificate. */
  keyId: string
  /** Base64 of the 64-byte Ed25519 signature. */
  value: string
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  signedAt: string
}

/** Why a manifest cannot be read as a signed manifest. */
export interface TrailerProblem {
  code: 'manifest-malformed' | 'signature-missing' | 'signature-malformed'
  message: string
}

function problem(code: TrailerProblem['code'], message: string): TrailerProblem {
  return {code, message}
}

/** A signed manifest split at its trailer. */
export interface SplitManifest {
  /** U: the bytes before the trailer, then `}`. */
  unsigned: Uint8Array
  signature: SignatureFields
}

/** manifest.json read as strict JSON, with how many top-level `signature` members it has. */
export interface SignedManifestJson {
  /** The parsed object (the first `signature` member when it repeats). */
  value: Record<string, unknown>
  signatureCount: number
}

const trailerStart = Buffer.from(',"signature":{"algorithm":"', 'utf8')
// A trailer value is printable ASCII without `"` and `\`: no escape can make two texts mean one value.
const trailerValue = '([\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]+)'
const trailerShape = new RegExp(`^,"signature":\\{"algorithm":"${trailerValue}","keyId":"${trailerValue}","value":"${trailerValue}","signedAt":"${trailerValue}"\\}\\}\\n$`)
const jsonWhitespace = new Set([0x20, 0x09, 0x0a, 0x0d])
const closingBrace = 0x7d
const trailerValueShape = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/

/** The trailer text for `signature`, its final `\n` included. */
export function signatureTrailer(signature: SignatureFields): string {
  return `,"signature":{"algorithm":"${signature.algorithm}","keyId":"${signature.keyId}","value":"${signature.value}","signedAt":"${signature.signedAt}"}}\n`
}

/**
 * Reads manifest.json as strict JSON for verification. A repeated top-level `signature`
 * member is not a JSON problem here but a signature problem (U must not carry one), so it
 * is counted, and the rest of the file must still be strict JSON: `manifest-malformed` otherwise.
 */
export function readSignedManifestJson(bytes: Uint8Array, parsed?: ReadJsonResult): SignedManifestJson | TrailerProblem {
  const document = parsed ?? readJsonDocument(bytes, {maxBytes: Number.POSITIVE_INFINITY})
  if (document.ok) return {value: document.value, signatureCount: Object.hasOwn(document.value, 'signature') ? 1 : 0}
  if (document.problem.pointer !== '/signature') return problem('manifest-malformed', `manifest.json is not strict JSON: ${document.problem.message}`)
  const renamed = renameRepeatedSignatures(Buffer.from(bytes).toString('utf8'))
  const again = readJsonDocument(Buffer.from(renamed.text, 'utf8'), {maxBytes: Number.POSITIVE_INFINITY})
  if (!again.ok) return problem('manifest-malformed', `manifest.json is not strict JSON: ${again.problem.message}`)
  return {value: again.value, signatureCount: renamed.count}
}

/** Gives every top-level `signature` member after the first a fresh name, so the rest can be judged as JSON. */
function renameRepeatedSignatures(text: string): {text: string; count: number} {
  const root = parseTree(text, [], {disallowComments: true, allowTrailingComma: false})
  const keys = (root?.children ?? []).map((property) => property.children?.[0]).filter((key) => key !== undefined)
  const names = new Set(keys.map((key) => key.value as string))
  const repeats = keys.filter((key) => key.value === 'signature').slice(1)
  let result = text
  // Right to left, so earlier offsets stay valid.
  for (const [index, key] of [...repeats.entries()].reverse()) {
    let name = `signature-repeat-${index}`
    while (names.has(name)) name = `${name}_`
    result = `${result.slice(0, key.offset)}${JSON.stringify(name)}${result.slice(key.offset + key.length)}`
  }
  return {text: result, count: repeats.length + 1}
}

/**
 * Splits a signed manifest at its trailer, given the strict-JSON reading of the
 * whole file. `signature-malformed` when: `signature` appears more than once; the file does not end
 * with exactly `,"signature":{"algorithm":"…","keyId":"…","value":"…","signedAt":"…"}}` and one `\n`
 * (values printable ASCII without `"` or `\`); keyId is not a certificate id; value is not canonical
 * base64 of 64 bytes; signedAt is not `YYYY-MM-DDTHH:MM:SSZ`; U is not a strict JSON object or
 * carries `signature` itself; the parsed signature differs from the trailer's values.
 */
export function splitTrailer(bytes: Uint8Array, manifest: SignedManifestJson): SplitManifest | TrailerProblem {
  if (manifest.signatureCount > 1) return malformed(`manifest.json has ${manifest.signatureCount} "signature" members; a signed manifest has exactly one, in the trailer.`)
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const trailer = locateTrailer(bytes)
  if (trailer === null) {
    return malformed('manifest.json does not end with the signature trailer ,"signature":{"algorithm":…,"keyId":…,"value":…,"signedAt":…}} and one newline, exactly as written by the signer.')
  }
  const {start, signature} = trailer
  const fieldProblem = checkSignatureFields(signature)
  if (fieldProblem !== null) return malformed(`The signature ${fieldProblem}.`)
  const unsigned = new Uint8Array(Buffer.concat([buffer.subarray(0, start), Buffer.from('}', 'utf8')]))
  const document = readJsonDocument(unsigned, {maxBytes: Number.POSITIVE_INFINITY})
  if (!document.ok) return malformed(`The manifest without its trailer is not a strict JSON object: ${document.problem.message}`)
  if (Object.hasOwn(document.value, 'signature')) return malformed('The manifest without its trailer still has a "signature" member (an escaped or repeated key).')
  if (!sameSignature(manifest.value.signature, signature)) return malformed('The parsed "signature" member differs from the trailer.')
  return {unsigned, signature}
}

/** Where a manifest's trailer starts and the values it carries, read from the bytes alone (nothing else judged). */
export interface LocatedTrailer {
  /** Offset of the trailer's leading `,` in the manifest's bytes. */
  start: number
  signature: SignatureFields
  /** Offset of the first character of the signature's `value`. */
  valueOffset: number
}

/**
 * Finds the trailer: the last `,"signature":{"algorithm":"` of the bytes, from which the rest must match
 * the trailer grammar exactly (values printable ASCII without `"` or `\`); null when it does not.
 */
export function locateTrailer(bytes: Uint8Array): LocatedTrailer | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const start = buffer.lastIndexOf(trailerStart)
  const match = start === -1 ? null : trailerShape.exec(buffer.subarray(start).toString('latin1'))
  if (match === null) return null
  const [, algorithm, keyId, value, signedAt] = match as unknown as [string, string, string, string, string]
  // The values are ASCII: one byte a character.
  const valueOffset = start + trailerStart.length + algorithm.length + '","keyId":"'.length + keyId.length + '","value":"'.length
  return {start, signature: {algorithm, keyId, value, signedAt}, valueOffset}
}

/** Why the signature values cannot stand in the trailer (a phrase), or null. The algorithm is judged later. */
function checkSignatureFields(signature: SignatureFields): string | null {
  for (const [name, text] of Object.entries(signature)) {
    if (!trailerValueShape.test(text)) return `${name} must be non-empty printable ASCII without quotes or backslashes`
  }
  if (!certificateIdPattern.test(signature.keyId)) return 'keyId must be a certificate id ("cert_" and 32 lowercase hex digits)'
  if (decodeBase64(signature.value, signatureLength) === null) return `value must be canonical base64 of ${signatureLength} bytes`
  if (!isTimestamp(signature.signedAt)) return 'signedAt must be a UTC time written YYYY-MM-DDTHH:MM:SSZ'
  return null
}

function sameSignature(parsed: unknown, trailer: SignatureFields): boolean {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false
  const entries = Object.entries(parsed)
  return entries.length === 4 && entries.every(([key, value]) => key in trailer && trailer[key as keyof SignatureFields] === value)
}

function malformed(message: string): TrailerProblem {
  return problem('signature-malformed', message)
}

/**
 * Splits a signed manifest into U and its signature values, or returns the first
 * problem: `manifest-malformed`, `signature-missing`, `signature-malformed`.
 */
export function splitSignedManifest(bytes: Uint8Array, parsed?: ReadJsonResult): SplitManifest | TrailerProblem {
  const manifest = readSignedManifestJson(bytes, parsed)
  if ('code' in manifest) return manifest
  if (manifest.signatureCount === 0) return problem('signature-missing', 'manifest.json has no "signature": the artifact is not signed.')
  return splitTrailer(bytes, manifest)
}

/**
 * Signs a packed manifest without re-serialising it: its trailing whitespace and
 * final `}` are removed and the trailer appended. The result's U is the packed manifest with its
 * trailing whitespace removed.
 */
export function appendSignatureTrailer(packedManifest: Uint8Array, signature: SignatureFields): Uint8Array {
  const problemText = checkSignatureFields(signature)
  if (problemText !== null) throw new SigningError('signature-malformed', `The signature ${problemText}.`)
  const unsigned = unsignedManifestOf(packedManifest)
  return new Uint8Array(Buffer.concat([unsigned.subarray(0, -1), Buffer.from(signatureTrailer(signature), 'utf8')]))
}

/**
 * U for a packed manifest: its bytes without trailing whitespace, ending in the `}` that the trailer
 * will replace. The signer hashes these bytes before the trailer exists; the verifier rebuilds them.
 */
export function unsignedManifestOf(packedManifest: Uint8Array): Uint8Array {
  let end = packedManifest.length
  while (end > 0 && jsonWhitespace.has(packedManifest[end - 1] as number)) end -= 1
  if (packedManifest[end - 1] !== closingBrace) throw new SigningError('manifest-malformed', 'The packed manifest does not end with "}"; it is not a JSON object.')
  return packedManifest.subarray(0, end)
}
