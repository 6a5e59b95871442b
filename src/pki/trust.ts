import {randomBytes} from 'node:crypto'
import {readInputFile} from '../fs/input.js'
import {readJsonDocument} from '../json/strict-json.js'
import path from 'node:path'
import {decodeBase64, encodeBase64} from './base64.js'
import {rootKeyIdPattern} from './certificate.js'
import {base64Line} from './base64.js'
import {generateKeyPair, isStrictPublicKey, keyLength} from './ed25519.js'
import {SigningError} from './errors.js'
import {type KeyPair, keyPairFiles, readPublicKeyFile, type WrittenKeyPair, writeKeyPairInto} from './keys.js'
import {withOutputs} from '../fs/output.js'

/** One trusted root: its id (as certificates name it) and its Ed25519 public key in base64. */
export interface TrustedRoot {
  rootKeyId: string
  publicKey: string
}

/** The roots a verifier trusts: the JSON shape of `trust.json`. */
export interface TrustStore {
  roots: TrustedRoot[]
}

/** The file name `cert root` gives the trust store. */
export const trustStoreFileName = 'trust.json'

/**
 * Checks that `value` has the trust store shape: `roots` an array of `{rootKeyId, publicKey}` with
 * well-formed, unique root key ids and canonical base64 of 32-byte keys. Throws `trust-store-invalid`.
 */
export function parseTrustStore(value: unknown): TrustStore {
  const problem = checkTrustStore(value)
  if (problem !== null) throw new SigningError('trust-store-invalid', `The trust store is invalid: ${problem}.`)
  const roots = (value as {roots: TrustedRoot[]}).roots
  return {roots: roots.map(({rootKeyId, publicKey}) => ({rootKeyId, publicKey}))}
}

function checkTrustStore(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it must be a JSON object'
  const roots = (value as Record<string, unknown>).roots
  if (!Array.isArray(roots)) return '"roots" must be an array'
  const seen = new Set<string>()
  for (const [index, root] of roots.entries()) {
    if (typeof root !== 'object' || root === null || Array.isArray(root)) return `roots[${index}] must be an object`
    const {rootKeyId, publicKey} = root as Record<string, unknown>
    if (typeof rootKeyId !== 'string' || !rootKeyIdPattern.test(rootKeyId)) return `roots[${index}].rootKeyId must be "root_" followed by 4 to 32 of [0-9a-z]`
    if (seen.has(rootKeyId)) return `the root key id ${rootKeyId} appears twice`
    seen.add(rootKeyId)
    if (typeof publicKey !== 'string' || decodeBase64(publicKey, keyLength) === null) return `roots[${index}].publicKey must be canonical base64 of ${keyLength} bytes`
  }
  return null
}

/** Trust stores are small; a larger file is refused before it is parsed. */
const maxTrustStoreBytes = 1024 * 1024

/** Reads a trust store file; `trust-store-unreadable` when it is missing, not JSON or not a trust store. */
export async function readTrustStore(file: string): Promise<TrustStore> {
  let bytes: Buffer
  try {
    bytes = (await readInputFile(file, {limit: maxTrustStoreBytes + 1})).bytes
  } catch (error) {
    throw new SigningError('trust-store-unreadable', `Cannot read the trust store ${file}: ${(error as Error).message}`, {cause: error, details: {path: file}})
  }
  // Strict JSON like every other signed input: no duplicate keys, comments or BOM.
  const document = readJsonDocument(bytes, {maxBytes: maxTrustStoreBytes})
  if (!document.ok) throw new SigningError('trust-store-unreadable', `${file} is not a trust store: ${document.problem.message}`, {details: {path: file}})
  const value: unknown = document.value
  try {
    return parseTrustStore(value)
  } catch (error) {
    throw new SigningError('trust-store-unreadable', `${file}: ${(error as Error).message}`, {cause: error, details: {path: file}})
  }
}

/** The public key of root `rootKeyId` in `trust`, or null when the store does not trust it. */
export function trustedRootKey(trust: TrustStore, rootKeyId: string): Uint8Array | null {
  const root = trust.roots.find((candidate) => candidate.rootKeyId === rootKeyId)
  return root === undefined ? null : decodeBase64(root.publicKey, keyLength)
}

/** The id of a new root: the one asked for (`invalid-root-key-id` unless `root_` + 4 to 32 of [0-9a-z]), or `root_` + 16 random hex digits. */
function newRootKeyId(requested: string = `root_${randomBytes(8).toString('hex')}`): string {
  if (!rootKeyIdPattern.test(requested)) {
    throw new SigningError('invalid-root-key-id', `The root key id ${JSON.stringify(requested)} must be "root_" followed by 4 to 32 of [0-9a-z].`)
  }
  return requested
}

/** A fresh root: its key pair and a trust store that trusts it. The id defaults to `root_` + 16 random hex digits. */
export function createRoot(requestedId?: string): {rootKeyId: string; keyPair: KeyPair; trustStore: TrustStore} {
  const rootKeyId = newRootKeyId(requestedId)
  const keyPair = generateKeyPair()
  return {rootKeyId, keyPair, trustStore: {roots: [{rootKeyId, publicKey: encodeBase64(keyPair.publicKey)}]}}
}

/** Where `writeRoot` put a new root. */
export interface WrittenRoot extends WrittenKeyPair {
  rootKeyId: string
  trustStore: TrustStore
  /** `<dir>/trust.json`. */
  trustStoreFile: string
}

/**
 * Creates a root (`createRoot`) and writes `root.key` (0600), `root.pub` and `trust.json` into `dir`.
 * Never overwrites (`output-exists`); on failure nothing it created is left behind.
 */
export async function writeRoot(dir: string, options: {rootKeyId?: string} = {}): Promise<WrittenRoot> {
  const {rootKeyId, keyPair, trustStore} = createRoot(options.rootKeyId)
  const trustStoreFile = path.join(dir, trustStoreFileName)
  return withOutputs(async (outputs) => {
    const written = await writeKeyPairInto(outputs, dir, 'root', keyPair)
    await outputs.newFile(trustStoreFile, `${JSON.stringify(trustStore, null, 2)}\n`)
    return {...written, rootKeyId, trustStore, trustStoreFile}
  })
}

/** Where `writeRootOfPublicKey` put a root whose private key it never saw. */
export interface WrittenPublicRoot {
  rootKeyId: string
  trustStore: TrustStore
  /** `<dir>/root.pub`: the public key, one line of base64. */
  publicKeyFile: string
  /** `<dir>/trust.json`. */
  trustStoreFile: string
  /** Standard base64 of the root's 32-byte public key. */
  publicKeyText: string
}

/**
 * Writes `root.pub` and `trust.json` into `dir` for a root whose private key stays in a vault: its public
 * key is read from `publicKeyFile` (`key-unreadable`; `key-invalid` when it is not a strict Ed25519 key).
 * Never overwrites (`output-exists`); on failure nothing it created is left behind.
 */
export async function writeRootOfPublicKey(dir: string, options: {publicKeyFile: string; rootKeyId?: string}): Promise<WrittenPublicRoot> {
  const publicKey = await readPublicKeyFile(options.publicKeyFile)
  if (!isStrictPublicKey(publicKey)) throw new SigningError('key-invalid', `${options.publicKeyFile} is not a strict Ed25519 public key (canonical, not the identity, no small-order component).`)
  const rootKeyId = newRootKeyId(options.rootKeyId)
  const publicKeyText = encodeBase64(publicKey)
  const trustStore: TrustStore = {roots: [{rootKeyId, publicKey: publicKeyText}]}
  const {publicKeyFile} = keyPairFiles(dir, 'root')
  const trustStoreFile = path.join(dir, trustStoreFileName)
  return withOutputs(async (outputs) => {
    await outputs.folder(dir)
    await outputs.newFile(publicKeyFile, base64Line(publicKey), 0o644)
    await outputs.newFile(trustStoreFile, `${JSON.stringify(trustStore, null, 2)}\n`)
    return {rootKeyId, trustStore, publicKeyFile, trustStoreFile, publicKeyText}
  })
}
