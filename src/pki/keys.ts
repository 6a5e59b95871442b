import {readInputFile} from '../fs/input.js'
import {type OutputScope, withOutputs} from '../fs/output.js'
import path from 'node:path'
import {base64Line, decodeBase64Line, encodeBase64} from './base64.js'
import {generateKeyPair, keyLength} from './ed25519.js'
import {SigningError} from './errors.js'

/** An Ed25519 key pair: the 32-byte public key and the 32-byte private seed. */
export interface KeyPair {
  publicKey: Uint8Array
  privateKey: Uint8Array
}

/** Where `writeKeyPair` put a key pair. */
export interface WrittenKeyPair extends KeyPair {
  /** `<dir>/<name>.pub`: base64 of the public key, one line. */
  publicKeyFile: string
  /** `<dir>/<name>.key`: base64 of the private seed, one line, mode 0600. */
  privateKeyFile: string
  /** The public key as the `.pub` file and trust stores write it: standard base64 of its 32 bytes. */
  publicKeyText: string
}


/** The file names of key pair `name` in `dir`: `<name>.key` (private) and `<name>.pub` (public). */
export function keyPairFiles(dir: string, name: string): {privateKeyFile: string; publicKeyFile: string} {
  return {privateKeyFile: path.join(dir, `${name}.key`), publicKeyFile: path.join(dir, `${name}.pub`)}
}

/**
 * Generates a key pair (or takes `keyPair`) and writes `<name>.key` (mode 0600) and `<name>.pub` into
 * `dir`, creating `dir` if needed. Never overwrites: an existing file gives `output-exists` and
 * nothing is left behind; a folder that cannot be created or written gives `write-failed`.
 */
export async function writeKeyPair(dir: string, name: string, keyPair: KeyPair = generateKeyPair()): Promise<WrittenKeyPair> {
  return withOutputs((outputs) => writeKeyPairInto(outputs, dir, name, keyPair))
}

/** {@link writeKeyPair} among the outputs of a larger operation (a root's key pair and its trust store). */
export async function writeKeyPairInto(outputs: OutputScope, dir: string, name: string, keyPair: KeyPair): Promise<WrittenKeyPair> {
  if (name === '' || /[/\\]/.test(name) || name === '.' || name === '..') {
    throw new SigningError('invalid-key-name', `The key name ${JSON.stringify(name)} is not a plain file name.`)
  }
  const {privateKeyFile, publicKeyFile} = keyPairFiles(dir, name)
  await outputs.folder(dir)
  // The private file first, exclusively and with mode 0600 from its creation.
  await outputs.newFile(privateKeyFile, base64Line(keyPair.privateKey), 0o600)
  await outputs.newFile(publicKeyFile, base64Line(keyPair.publicKey), 0o644)
  return {...keyPair, privateKeyFile, publicKeyFile, publicKeyText: encodeBase64(keyPair.publicKey)}
}

/** Reads a public key file: one line of base64 of 32 bytes (`key-unreadable` otherwise). */
export function readPublicKeyFile(file: string): Promise<Uint8Array> {
  return readKeyFile(file, 'public')
}

/** Reads a private key file: one line of base64 of the 32-byte seed (`key-unreadable` otherwise). */
export function readPrivateKeyFile(file: string): Promise<Uint8Array> {
  return readKeyFile(file, 'private')
}

async function readKeyFile(file: string, kind: 'public' | 'private'): Promise<Uint8Array> {
  let bytes: Uint8Array
  try {
    // A key file is one short line; reading a little more is enough to refuse anything else.
    bytes = (await readInputFile(file, {limit: 4096})).bytes
  } catch (error) {
    throw new SigningError('key-unreadable', `Cannot read the ${kind} key file ${file}: ${(error as Error).message}`, {cause: error, details: {path: file}})
  }
  const key = decodeBase64Line(bytes, keyLength)
  if (key === null) {
    throw new SigningError('key-unreadable', `${file} is not an Ed25519 ${kind} key file: it must hold one line of base64 of ${keyLength} bytes.`, {details: {path: file}})
  }
  return key
}
