import {readInputFile} from '../fs/input.js'
import {SigningError} from './errors.js'
import {readPrivateKeyFile} from './keys.js'
import {checkSignature, parseSignatureBytes, type Signer, type SignerCommandOptions, signerFromCommand, signerFromPrivateKey, signWithSigner} from './signer.js'

/**
 * Where the signature of a signing operation (an artifact, a certificate, a revocation list) comes from:
 * a private key in memory, a signer (a key in a vault, reached through a function or a command), or a
 * statement prepared earlier (`prepare…`) together with the signature a vault made of it on another machine.
 * docs/signing.md, "Signing with a key in a vault".
 */

/** A statement prepared earlier and the signature a key made of its exact bytes. */
export interface PreparedSignature {
  /** The bytes the key signed, as the operation's `prepare…` function wrote them. */
  statement: Uint8Array
  /** The 64-byte Ed25519 signature of `statement`. */
  signature: Uint8Array
}

/** How an operation signs: with a private key, with a signer, or by completing a prepared statement. */
export type SigningKey = {privateKey: Uint8Array} | {signer: Signer} | {prepared: PreparedSignature}

/** The key members an options object may carry: exactly one of them names the {@link SigningKey}. */
export interface SigningKeyOptions {
  /** The 32-byte private seed. */
  privateKey?: Uint8Array
  /** A signer holding the key elsewhere (`signerFromCommand`, a cloud key service's client). */
  signer?: Signer
  /** A statement prepared earlier and its signature. */
  prepared?: PreparedSignature
}

/** Where a key is, as files and commands name it: a private key file, a signing command, or a prepared statement file and its signature file. */
export type KeySource = {privateKeyFile: string} | {signerCommand: string} | {preparedFile: string; signatureFile: string}

/**
 * The signing key as an operation's options give it, exactly one way: in memory (`privateKey`, `signer`,
 * `prepared`), its private key file (`privateKeyFile`), or as files and commands name it (`key`).
 */
export interface SigningKeySource extends SigningKeyOptions {
  /** The private key's file, as `keygen` writes it. */
  privateKeyFile?: string
  /** A private key file, a signing command, or a prepared statement file and its signature file. */
  key?: KeySource
  /** Working directory of a signing command. */
  cwd?: string
}

/**
 * The {@link SigningKey} `options` name, read from its file or started as a command when given so; null when
 * they name none, `invalid-signer` when they name two.
 */
export async function readKeySource(options: SigningKeySource, what: string, signal?: AbortSignal): Promise<SigningKey | null> {
  const inMemory = signingKeyOf(options, what)
  const named: KeySource[] = [...(options.privateKeyFile === undefined ? [] : [{privateKeyFile: options.privateKeyFile}]), ...(options.key === undefined ? [] : [options.key])]
  if (named.length + (inMemory === null ? 0 : 1) > 1) {
    throw new SigningError('invalid-signer', `Give ${what} one way: a private key or its file, a signer or a signing command, or a prepared statement with its signature.`)
  }
  const source = named[0]
  if (source === undefined) return inMemory
  return readSigningKey(source, {...(options.cwd === undefined ? {} : {cwd: options.cwd}), ...(signal === undefined ? {} : {signal})})
}

/** The most a statement file may hold: a revocation list (16 MiB) with its domain line. */
const maxStatementBytes = 16 * 1024 * 1024 + 1024

/** The most a signature file may hold: 64 raw bytes, or one line of base64 and its line end. */
const maxSignatureFileBytes = 4096

/**
 * The {@link SigningKey} named by `options`, or null when it names none; two or three of them at once are
 * `invalid-signer`. `what` names the key in the message (`the root key`).
 */
export function signingKeyOf(options: SigningKeyOptions, what: string): SigningKey | null {
  const given: SigningKey[] = []
  if (options.privateKey !== undefined) given.push({privateKey: options.privateKey})
  if (options.signer !== undefined) given.push({signer: options.signer})
  if (options.prepared !== undefined) given.push({prepared: options.prepared})
  if (given.length > 1) throw new SigningError('invalid-signer', `Give ${what} one way: a private key, a signer, or a prepared statement with its signature.`)
  return given[0] ?? null
}

/** Reads the key a {@link KeySource} names: the private key file, a signer running the command, or the statement and signature files. */
export async function readSigningKey(source: KeySource, options: SignerCommandOptions = {}): Promise<SigningKey> {
  if ('privateKeyFile' in source) return {privateKey: await readPrivateKeyFile(source.privateKeyFile)}
  if ('signerCommand' in source) return {signer: signerFromCommand(source.signerCommand, options)}
  return {prepared: await readPreparedSignature(source.preparedFile, source.signatureFile)}
}

/**
 * Reads a prepared statement and its signature file: the statement's bytes as they are
 * (`statement-malformed` when the file cannot be read or is empty), the signature 64 raw bytes or one line
 * of base64 of 64 bytes (`signature-unreadable` otherwise).
 */
export async function readPreparedSignature(statementFile: string, signatureFile: string): Promise<PreparedSignature> {
  let statement: Uint8Array
  try {
    statement = new Uint8Array((await readInputFile(statementFile, {limit: maxStatementBytes})).bytes)
  } catch (error) {
    throw new SigningError('statement-malformed', `Cannot read the prepared statement ${statementFile}: ${(error as Error).message}`, {cause: error, details: {path: statementFile}})
  }
  if (statement.length === 0) throw new SigningError('statement-malformed', `The prepared statement ${statementFile} is empty.`, {details: {path: statementFile}})
  let bytes: Uint8Array
  try {
    bytes = (await readInputFile(signatureFile, {limit: maxSignatureFileBytes})).bytes
  } catch (error) {
    throw new SigningError('signature-unreadable', `Cannot read the signature file ${signatureFile}: ${(error as Error).message}`, {cause: error, details: {path: signatureFile}})
  }
  const signature = parseSignatureBytes(bytes)
  if (signature === null) {
    throw new SigningError('signature-unreadable', `${signatureFile} is not a signature: 64 raw bytes, or one line of base64 of 64 bytes (it has ${bytes.length} bytes).`, {details: {path: signatureFile}})
  }
  return {statement, signature}
}

/** The prepared statement's bytes when `key` completes one (the operation reads its fixed fields from them), or null. */
export function preparedStatementOf(key: SigningKey): Uint8Array | null {
  return 'prepared' in key ? key.prepared.statement : null
}

/**
 * Signs `message` with `key` and checks the signature against `publicKey` before anyone uses it
 * (`signature-invalid`). A prepared statement must be exactly `message`: otherwise `statement-mismatch`,
 * with `mismatch`'s sentence saying what differs (another artifact, another key, a list changed since).
 */
export async function signWithKey(key: SigningKey, message: Uint8Array, publicKey: Uint8Array, what: string, mismatch: (statement: Uint8Array) => string): Promise<Uint8Array> {
  if ('prepared' in key) {
    const {statement, signature} = key.prepared
    if (!Buffer.from(statement).equals(Buffer.from(message))) throw new SigningError('statement-mismatch', mismatch(statement))
    checkSignature(signature, message, publicKey, what)
    return signature
  }
  return signWithSigner('privateKey' in key ? signerFromPrivateKey(key.privateKey) : key.signer, message, publicKey, what)
}
