import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {generateKeyPair, verifyStrict} from '../../src/pki/ed25519.js'
import {parseSignatureBytes, signerFromCommand, signerFromPrivateKey, signWithSigner} from '../../src/pki/signer.js'

let dir: string
/** The raw public half of a key that only OpenSSL holds. */
let vaultPublicKey: Uint8Array
let keyPem: string
const message = new TextEncoder().encode('svc-plugin statement: the bytes a vault signs\n')

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-signer-'))
  keyPem = path.join(dir, 'vault.pem')
  execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', keyPem])
  const spki = execFileSync('openssl', ['pkey', '-in', keyPem, '-pubout', '-outform', 'DER'])
  vaultPublicKey = new Uint8Array(spki.subarray(spki.length - 32))
})
after(async () => {
  await rm(dir, {recursive: true, force: true})
})

async function refusal(promise: Promise<unknown>): Promise<{code: string; message: string}> {
  try {
    await promise
  } catch (error) {
    return error as {code: string; message: string}
  }
  assert.fail('expected a refusal')
}

describe('signerFromCommand', () => {
  it('signs with the message on stdin and 64 raw bytes on stdout', async () => {
    const signer = signerFromCommand(`cat > '${path.join(dir, 'piped')}' && openssl pkeyutl -sign -rawin -inkey '${keyPem}' -in '${path.join(dir, 'piped')}'`)
    const signature = await signWithSigner(signer, message, vaultPublicKey, 'the statement')
    assert.equal(signature.length, 64)
    assert.equal(verifyStrict(signature, message, vaultPublicKey), true)
  })

  it('names a private file holding the message for tools that sign only files, and removes it afterwards', async () => {
    const seen = path.join(dir, 'seen')
    const signer = signerFromCommand(`echo "$SVC_PLUGIN_MESSAGE_FILE" > '${seen}' && openssl pkeyutl -sign -rawin -inkey '${keyPem}' -in "$SVC_PLUGIN_MESSAGE_FILE"`)
    const signature = await signWithSigner(signer, message, vaultPublicKey, 'the statement')
    assert.equal(verifyStrict(signature, message, vaultPublicKey), true)
    const messageFile = (await readFile(seen, 'utf8')).trim()
    await assert.rejects(readFile(messageFile), {code: 'ENOENT'})
  })

  it('reads one line of base64 as well', async () => {
    const signer = signerFromCommand(`openssl pkeyutl -sign -rawin -inkey '${keyPem}' -in "$SVC_PLUGIN_MESSAGE_FILE" | openssl base64 -A; echo`)
    const signature = await signer(message)
    assert.equal(verifyStrict(signature, message, vaultPublicKey), true)
  })

  it('refuses a command that fails, with its status and what it wrote', async () => {
    const error = await refusal(signerFromCommand('echo vault is locked >&2; exit 3')(message))
    assert.equal(error.code, 'signer-failed')
    assert.match(error.message, /exited with status 3/)
    assert.match(error.message, /vault is locked/)
  })

  it('refuses a command that prints something that is not a signature', async () => {
    const error = await refusal(signerFromCommand('cat')(message))
    assert.equal(error.code, 'signer-failed')
    assert.match(error.message, new RegExp(`printed ${message.length} bytes`))
  })

  it('refuses a command that prints without end, without keeping what it prints', async () => {
    const error = await refusal(signerFromCommand('head -c 1000000 /dev/zero')(message))
    assert.equal(error.code, 'signer-failed')
    assert.match(error.message, /printed 1000000 bytes/)
  })

  it('rejects with the reason of an aborted signal and stops the command', async () => {
    const controller = new AbortController()
    const marker = path.join(dir, 'never-written')
    const running = signerFromCommand(`sleep 5; touch '${marker}'`, {signal: controller.signal})(message)
    controller.abort(new Error('host quits'))
    await assert.rejects(running, /host quits/)
    await assert.rejects(readFile(marker), {code: 'ENOENT'})
  })
})

describe('signWithSigner', () => {
  it('refuses a signature by another key before anyone uses it (signature-invalid)', async () => {
    const other = generateKeyPair()
    const error = await refusal(signWithSigner(signerFromPrivateKey(other.privateKey), message, vaultPublicKey, 'the statement'))
    assert.equal(error.code, 'signature-invalid')
    assert.match(error.message, /the statement/)
  })

  it('refuses a vault that signs other bytes', async () => {
    const own = generateKeyPair()
    const signer = signerFromPrivateKey(own.privateKey)
    const error = await refusal(signWithSigner((bytes) => signer(Uint8Array.from([...bytes, 0])), message, own.publicKey, 'the statement'))
    assert.equal(error.code, 'signature-invalid')
  })
})

describe('parseSignatureBytes', () => {
  it('takes 64 raw bytes, or their canonical base64 with or without a line end, and nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({minLength: 64, maxLength: 64}), fc.constantFrom('', '\n', '\r\n'), (raw, end) => {
        assert.deepEqual(parseSignatureBytes(raw), raw)
        assert.deepEqual(parseSignatureBytes(Buffer.from(`${Buffer.from(raw).toString('base64')}${end}`)), raw)
      }),
      {numRuns: 200},
    )
    fc.assert(
      fc.property(fc.uint8Array({maxLength: 200}).filter((bytes) => bytes.length !== 64), (raw) => {
        // The base64 of anything but 64 bytes is not a signature.
        assert.equal(parseSignatureBytes(Buffer.from(Buffer.from(raw).toString('base64'))), null)
      }),
      {numRuns: 200},
    )
  })
})
