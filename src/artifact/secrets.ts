import {lintSource} from '@secretlint/core'
import {creator as recommendedRules} from '@secretlint/secretlint-rule-preset-recommend'
import type {SecretFinding} from '../manifest/content.js'
import {decodeBase64Line} from '../pki/base64.js'
import {keyLength} from '../pki/ed25519.js'

/**
 * What must never ship inside a plugin by accident: private keys (PEM, OpenSSH, PKCS#8, PuTTY, and this
 * toolchain's own key files), `.env` files, and credentials of well-known shapes (cloud access keys, npm,
 * GitHub and Slack tokens and more, as the maintained secretlint rule set recognises them). See
 * docs/secrets.md.
 */

/** Files up to this size are read for credentials; larger ones (media, native libraries) are not. */
export const maxScannedBytes = 1024 * 1024

// `.env`, `.env.local`, `.env.production`…; the usual templates (`.env.example`) hold no values.
const environmentFile = /^\.env(?:\.(?!example$|sample$|template$|dist$)[^/]+)?$/i
const pemPrivateKey = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/
const puttyPrivateKey = /^PuTTY-User-Key-File-\d+:/m
const secretlintConfig = {rules: [{id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedRules}]}

/** True for a `.env` file by its name, wherever it is in the tree. */
export function isEnvironmentFile(path: string): boolean {
  return environmentFile.test(path.slice(path.lastIndexOf('/') + 1))
}

/**
 * Every secret found in one file of a package: by its name (`.env`), then, for a file of at most
 * {@link maxScannedBytes} that is text, by its content. Never throws: a file that cannot be judged holds
 * nothing the rules recognise.
 */
export async function findSecrets(path: string, bytes: Uint8Array): Promise<SecretFinding[]> {
  if (isEnvironmentFile(path)) return [{path, kind: 'environment-file', what: 'an environment file (.env), which holds the values of secrets', line: null}]
  if (bytes.byteLength > maxScannedBytes || looksBinary(bytes)) return []
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  const findings: SecretFinding[] = []
  const pem = pemPrivateKey.exec(text) ?? puttyPrivateKey.exec(text)
  if (pem !== null) findings.push({path, kind: 'private-key', what: 'a private key', line: lineAt(text, pem.index)})
  else if (isOwnPrivateKeyFile(path, bytes)) findings.push({path, kind: 'private-key', what: 'an svc-plugin private key (keygen writes them as <name>.key)', line: 1})
  try {
    const result = await lintSource({source: {filePath: path, content: text, contentType: 'text'}, options: {config: secretlintConfig}})
    for (const message of result.messages) {
      // The private-key rule repeats what the check above says more precisely; two rules matching one line
      // (an npm token in an .npmrc) are one mistake.
      if (pem !== null && message.ruleId.endsWith('privatekey')) continue
      if (findings.some((found) => found.line === message.loc.start.line)) continue
      findings.push({path, kind: message.ruleId.endsWith('privatekey') ? 'private-key' : 'credential', what: describeRule(message.ruleId, message.messageId), line: message.loc.start.line})
    }
  } catch {
    // A rule that fails on strange text finds nothing in it.
  }
  return findings
}

/** A key file as keygen writes it, named `*.key`: one line of base64 of a 32-byte Ed25519 seed. */
function isOwnPrivateKeyFile(path: string, bytes: Uint8Array): boolean {
  return path.toLowerCase().endsWith('.key') && bytes.byteLength <= 64 && decodeBase64Line(bytes, keyLength) !== null
}

/** A NUL byte among the first 8 KiB: a binary file, whose bytes are not read as text. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0)
}

function lineAt(text: string, offset: number): number {
  let line = 1
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line++
  return line
}

/**
 * `a credential (AWS Secret Access Key)`: the rule's message id made readable. The rule's message itself is
 * never repeated: it quotes the secret.
 */
function describeRule(ruleId: string, messageId: string): string {
  const kind = messageId
    .replace(/[_-]+/g, ' ')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
  return `a credential (${kind || ruleId})`
}
