import {spawn} from 'node:child_process'
import {withSpooledFile} from '../fs/spool.js'
import {decodeBase64Line} from './base64.js'
import {sign, signatureLength, verifyStrict} from './ed25519.js'
import {SigningError} from './errors.js'

/**
 * A signing key wherever it lives: a function that returns the 64-byte Ed25519 signature of a message. The
 * library takes one wherever it takes a private key, so a key may stay in a hardware module, a cloud key
 * service or on an offline machine.
 */
export type Signer = (message: Uint8Array) => Promise<Uint8Array>

/** A signer over a private key held in memory. */
export function signerFromPrivateKey(privateKey: Uint8Array): Signer {
  return async (message) => sign(message, privateKey)
}

/**
 * Reads a signature handed back by a vault: exactly 64 bytes, or one line of canonical base64 of 64 bytes
 * (with or without its line end). `null` for anything else.
 */
export function parseSignatureBytes(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length === signatureLength) return new Uint8Array(bytes)
  let end = bytes.length
  if (end > 0 && bytes[end - 1] === 0x0a) end--
  if (end > 0 && bytes[end - 1] === 0x0d) end--
  return decodeBase64Line(bytes.subarray(0, end), signatureLength)
}

/** Options of {@link signerFromCommand}. */
export interface SignerCommandOptions {
  /** Working directory of the command; the current one when absent. */
  cwd?: string
  /** Stops a running command (it is killed) and rejects with the signal's reason. */
  signal?: AbortSignal
}

/** The most a signing command may print: a signature is 64 bytes, or 89 as a base64 line. */
const maxSignerOutput = 4096

/** The environment variable naming a file that holds the message, for tools that cannot sign from a pipe. */
export const messageFileVariable = 'SVC_PLUGIN_MESSAGE_FILE'

/**
 * A signer that runs `command` through the shell (`/bin/sh -c`, `cmd.exe` on Windows) with the message on
 * its standard input and reads the signature from its standard output (64 raw bytes or one line of base64).
 * The message is also in a private file named by `SVC_PLUGIN_MESSAGE_FILE` (removed afterwards), for tools
 * that sign only files (OpenSSL 3.0 cannot sign Ed25519 from a pipe). A command that cannot start, exits with
 * another status than 0, is killed, or prints anything else is `signer-failed`, naming the command and what it
 * wrote on standard error.
 */
export function signerFromCommand(command: string, options: SignerCommandOptions = {}): Signer {
  // The message's private file is written, tracked for Ctrl-C and removed as an upload's is.
  const spool = {maxBytes: Number.MAX_SAFE_INTEGER, tooLarge: () => new RangeError('unreachable: no limit'), name: 'message'}
  return (message) => withSpooledFile(message, spool, (messageFile) => runSignerCommand(command, message, messageFile, options))
}

function runSignerCommand(command: string, message: Uint8Array, messageFile: string, options: SignerCommandOptions): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const env = {...process.env, [messageFileVariable]: messageFile}
    const child = spawn(command, {shell: true, cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], signal: options.signal, windowsHide: true})
    const out: Buffer[] = []
    const err: Buffer[] = []
    let outLength = 0
    let errLength = 0
    const failed = (why: string): SigningError => new SigningError('signer-failed', `The signing command ${JSON.stringify(command)} ${why}`)
    child.stdout.on('data', (chunk: Buffer) => {
      outLength += chunk.length
      if (outLength <= maxSignerOutput) out.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (errLength < maxSignerOutput) err.push(chunk)
      errLength += chunk.length
    })
    // A command that never reads its input must not make the write fail the run: its exit status decides.
    child.stdin.on('error', () => undefined)
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.name === 'AbortError') reject(options.signal?.reason ?? error)
      else reject(failed(`could not be started: ${error.message}.`))
    })
    child.on('close', (status, signal) => {
      if (options.signal?.aborted === true) return
      const stderr = Buffer.concat(err).toString('utf8').slice(0, 400).trim()
      const said = stderr === '' ? '' : ` It wrote: ${JSON.stringify(stderr)}.`
      if (signal !== null) return reject(failed(`was killed by ${signal}.${said}`))
      if (status !== 0) return reject(failed(`exited with status ${status}.${said}`))
      const signature = outLength > maxSignerOutput ? null : parseSignatureBytes(Buffer.concat(out))
      if (signature === null) return reject(failed(`did not print a signature (64 bytes, or one line of base64 of 64 bytes); it printed ${outLength} bytes.${said}`))
      resolve(signature)
    })
    child.stdin.end(Buffer.from(message.buffer, message.byteOffset, message.byteLength))
  })
}

/**
 * Signs `message` with `signer` and checks the signature against `publicKey` before anyone uses it: a signer
 * that returns anything but a valid signature by that key is `signature-invalid` (a wrong key in the vault, a
 * signature of other bytes), so nothing is ever written under a signature that does not verify.
 */
export async function signWithSigner(signer: Signer, message: Uint8Array, publicKey: Uint8Array, what: string): Promise<Uint8Array> {
  const signature = await signer(message)
  checkSignature(signature, message, publicKey, what)
  return signature
}

/** Throws `signature-invalid` unless `signature` is a valid Ed25519 signature of `message` by `publicKey`. */
export function checkSignature(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array, what: string): void {
  if (signature.length !== signatureLength || !verifyStrict(signature, message, publicKey)) {
    throw new SigningError('signature-invalid', `The signature given for ${what} does not verify with its key: it was made by another key, or over other bytes.`)
  }
}
