import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {SigningError} from '../../src/pki/errors.js'
import type {Signer} from '../../src/pki/signer.js'

/**
 * Ed25519 keys that live in OpenSSL's PEM files, as a key in a vault lives outside the project: the project
 * knows only the public half, and every signature is made by running `openssl pkeyutl`.
 */

/** An OpenSSL key: its PEM file and the raw 32-byte public key. */
export interface OpensslKey {
  pem: string
  publicKey: Uint8Array
}

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo, before the 32 raw key bytes. */
const spkiPrefixLength = 12

/** Generates `<dir>/<name>.pem` with `openssl genpkey` and reads its raw public key (`openssl pkey -pubout -outform DER` minus the 12-byte prefix). */
export function opensslKey(dir: string, name: string): OpensslKey {
  const pem = path.join(dir, `${name}.pem`)
  execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', pem])
  const der = execFileSync('openssl', ['pkey', '-in', pem, '-pubout', '-outform', 'DER'])
  return {pem, publicKey: new Uint8Array(der.subarray(spkiPrefixLength))}
}

/** Signs `message` with `openssl pkeyutl -sign -rawin` (OpenSSL 3.0 reads a one-shot input from a regular file). */
export function opensslSign(key: OpensslKey, message: Uint8Array): Uint8Array {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-plugin-openssl-'))
  try {
    const file = path.join(dir, 'message')
    writeFileSync(file, message)
    return new Uint8Array(execFileSync('openssl', ['pkeyutl', '-sign', '-rawin', '-inkey', key.pem, '-in', file]))
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** A library signer backed by OpenSSL. */
export function opensslSigner(key: OpensslKey): Signer {
  return async (message) => opensslSign(key, message)
}

/** A shell command for `--signer-command`: OpenSSL signs the message file the signer names in SVC_PLUGIN_MESSAGE_FILE, the raw signature on stdout. */
export function opensslSignerCommand(key: OpensslKey): string {
  return `openssl pkeyutl -sign -rawin -inkey '${key.pem}' -in "$SVC_PLUGIN_MESSAGE_FILE"`
}

/** The code a signing operation `promise` is refused with (a `SigningError`), or 'none'. */
export async function signingRefusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
    return 'none'
  } catch (error) {
    assert.ok(error instanceof SigningError, String(error))
    return error.code
  }
}
