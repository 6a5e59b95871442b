import {mkdir, open, rm} from 'node:fs/promises'
import {readInputFile} from '../fs/input.js'
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
 * nothing is left behind.
 */
export async function writeKeyPair(dir: string, name: string, keyPair: KeyPair = generateKeyPair()): Promise<WrittenKeyPair> {
  if (name === '' || /[/\\]/.test(name) || name === '.' || name === '..') {
    throw new SigningError('invalid-key-name', `The key name ${JSON.stringify(name)} is not a plain file name.`)
  }
  const {privateKeyFile, publicKeyFile} = keyPairFiles(dir, name)
  await mkdir(dir, {recursive: true})
  const written: string[] = []
  try {
    // The private file first and exclusively: 'wx' refuses an existing file (or a symlink planted there).
    await writeNewFile(privateKeyFile, base64Line(keyPair.privateKey), 0o600)
    written.push(privateKeyFile)
    await writeNewFile(publicKeyFile, base64Line(keyPair.publicKey), 0o644)
    written.push(publicKeyFile)
  } catch (error) {
    await Promise.all(written.map((file) => rm(file, {force: true})))
    throw error
  }
  return {...keyPair, privateKeyFile, publicKeyFile, publicKeyText: encodeBase64(keyPair.publicKey)}
}

/**
 * Creates `file` with `content` and `mode`, refusing to replace anything (`output-exists`).
 * The mode is given to open(2) so a private key is never readable by others, not even briefly.
 */
export async function writeNewFile(file: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
  let handle
  try {
    handle = await open(file, 'wx', mode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new SigningError('output-exists', `${file} already exists; it is never overwritten. Choose another output or remove it first.`, {cause: error, details: {path: file}})
    }
    throw error
  }
  try {
    await handle.writeFile(content)
    await handle.sync()
  } finally {
    await handle.close()
  }
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
