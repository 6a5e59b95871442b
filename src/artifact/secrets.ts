import type {SecretFinding} from '../manifest/content.js'
import {decodeBase64} from '../pki/base64.js'
import {keyLength} from '../pki/ed25519.js'
import {loadCredentialRules, rulesFor, type RuleMessage} from './credential-rules.js'
import {derPrivateKeyKind} from './der-keys.js'
import {includesAscii, readText, textOf, type FileText} from './text-encoding.js'

/**
 * What must never ship inside a plugin by accident: private keys (PEM, OpenSSH, PKCS#8, PuTTY, binary DER,
 * and this toolchain's own key files), `.env` files, and credentials of well-known shapes (cloud access keys,
 * npm, GitHub and Slack tokens and more, as the maintained secretlint rule set recognises them). Text is read
 * as UTF-8 or, with a byte order mark, UTF-16, whatever its line ends. See docs/secrets.md.
 */

/** Files up to this size are read for credentials; larger ones (media, native libraries) are not. */
export const maxScannedBytes = 1024 * 1024

// `.env`, `.env.local`, `.env.production`…; the usual templates (`.env.example`) hold no values.
const environmentFile = /^\.env(?:\.(?!example$|sample$|template$|dist$)[^/]+)?$/i
const pemPrivateKey = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/
const puttyPrivateKey = /^PuTTY-User-Key-File-\d+:/m
/** What every match of {@link pemPrivateKey} and {@link puttyPrivateKey} holds: a file without it has no key header. */
const pemMarker = '-----BEGIN '
const puttyMarker = 'PuTTY-User-Key-File-'

/** True for a `.env` file by its name, wherever it is in the tree. */
export function isEnvironmentFile(path: string): boolean {
  return environmentFile.test(path.slice(path.lastIndexOf('/') + 1))
}

/**
 * Every secret found in one file of a package: by its name (`.env`), then, for a file of at most
 * {@link maxScannedBytes}, by its content. Never throws for what a file holds: a file that cannot be judged
 * holds nothing the rules recognise.
 */
export function findSecrets(path: string, bytes: Uint8Array): Promise<SecretFinding[]> {
  const scanner = new SecretScanner()
  scanner.add(path, bytes)
  return scanner.findings()
}

/** What a first look at a file's content found: a private key in binary form, or text that holds a key marker or a rule's keyword. */
type FirstLook = {binaryKey: string} | {file: FileText; rules: readonly string[]; markers: boolean}

/**
 * The first look at the content of the file `path`: null when nothing {@link SecretScanner.add} reports can
 * be in it (too large to be scanned, neither a binary key nor text, or text without a key marker or a keyword
 * of any credential rule: the usual case, which costs one pass over the bytes and decodes nothing).
 */
function firstLook(path: string, bytes: Uint8Array): FirstLook | null {
  if (bytes.byteLength > maxScannedBytes) return null
  const binaryKey = derPrivateKeyKind(bytes)
  if (binaryKey !== null) return {binaryKey}
  const file = readText(bytes)
  if (file === null) return null
  const rules = rulesFor(file, path)
  const markers = includesAscii(file, pemMarker) || includesAscii(file, puttyMarker) || isOwnKeyName(path)
  return rules.length === 0 && !markers ? null : {file, rules, markers}
}

/**
 * False when the content `bytes` of the file `path` cannot hold anything the scanner reports, so that
 * {@link SecretScanner.add} given null instead of them (the name alone) finds the same: what a reader on
 * another thread asks before handing a file's bytes over. Pure: it runs on any thread.
 */
export function contentMayHoldSecret(path: string, bytes: Uint8Array): boolean {
  return firstLook(path, bytes) !== null
}

/** Runs of the credential rules that may wait at once before a reader is asked to wait: each holds one file's text. */
const maxPendingRuns = 8

/**
 * Looks for secrets in the files of a package as they are read, each file's bytes handed over once
 * ({@link SecretScanner.add}, synchronous: the bytes may be reused right after). Names, binary keys, key
 * headers and the keywords of the credential rules are judged at once; the rules whose keywords a file holds
 * run on it alone, while the reading goes on. {@link SecretScanner.findings} waits for the last of them.
 */
export class SecretScanner {
  readonly #found: SecretFinding[] = []
  readonly #runs: Promise<void>[] = []
  readonly #pending = new Set<Promise<void>>()

  /**
   * Judges the file `path`: its name always; its content when `bytes` are given (null: the file was
   * too large to be read whole) and there are at most {@link maxScannedBytes} of them.
   */
  add(path: string, bytes: Uint8Array | null): void {
    if (isEnvironmentFile(path)) {
      this.#found.push({path, kind: 'environment-file', what: 'an environment file (.env), which holds the values of secrets', line: null})
      return
    }
    if (bytes === null) return
    const look = firstLook(path, bytes)
    if (look === null) return
    if ('binaryKey' in look) {
      this.#found.push({path, kind: 'private-key', what: `a private key in binary form (${look.binaryKey})`, line: null})
      return
    }
    const text = textOf(look.file)
    const pem = look.markers && this.#judgeKeys(path, text)
    if (look.rules.length > 0) this.#start(this.#lint(look.rules, text, path, pem))
  }

  /** Records a private key found in a file's text by its PEM or PuTTY header, or as keygen writes it; true for a header. */
  #judgeKeys(path: string, text: string): boolean {
    const header = pemPrivateKey.exec(text) ?? puttyPrivateKey.exec(text)
    if (header !== null) this.#found.push({path, kind: 'private-key', what: 'a private key', ...positionAt(text, header.index)})
    else if (isOwnPrivateKeyFile(path, text)) this.#found.push({path, kind: 'private-key', what: 'an svc-plugin private key (keygen writes them as <name>.key)', line: 1, column: 1})
    return header !== null
  }

  /** Every secret found, sorted by path and line, once the credential rules are done with every file. */
  async findings(): Promise<SecretFinding[]> {
    // Not finding the rules is a broken installation, not a clean package: that failure is not swallowed.
    await Promise.all(this.#runs)
    return [...this.#found].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0)))
  }

  /**
   * A promise that resolves once few enough runs of the credential rules wait, or undefined when that is
   * already so. A reader that can wait awaits it after each {@link SecretScanner.add}, so that the text held
   * does not grow when reading outpaces the rules.
   */
  room(): Promise<void> | undefined {
    return this.#pending.size > maxPendingRuns ? this.#waitForRoom() : undefined
  }

  async #waitForRoom(): Promise<void> {
    while (this.#pending.size > maxPendingRuns) await Promise.race(this.#pending)
  }

  #start(run: Promise<void>): void {
    // A failing run is reported by findings(); here it only stops taking room.
    const pending: Promise<void> = run.catch(() => undefined).finally(() => this.#pending.delete(pending))
    this.#pending.add(pending)
    this.#runs.push(run)
  }

  /** Runs the rules `ids` on one file's text and records what they find (`pem`: a key header was found in it). */
  async #lint(ids: readonly string[], text: string, path: string, pem: boolean): Promise<void> {
    // Loaded on the first file that needs them; failing to load them fails the scan.
    const rules = await loadCredentialRules()
    let messages: RuleMessage[]
    try {
      messages = await rules.run(ids, text, path)
    } catch {
      // A rule that fails on strange text finds nothing in it.
      return
    }
    for (const finding of credentialFindings(path, text, messages, pem)) {
      if (!this.#found.some((found) => found.path === path && found.line === finding.line)) this.#found.push(finding)
    }
  }
}

/**
 * The findings the credential rules' messages make in the file `path`, one per line: the private-key rule is
 * left out where a key header was found (`pem`: that finding says it more precisely), and two rules matching
 * one line (an npm token in an .npmrc) are one mistake.
 */
function credentialFindings(path: string, text: string, messages: readonly RuleMessage[], pem: boolean): SecretFinding[] {
  // The rules read the text without a leading byte order mark.
  const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const findings: SecretFinding[] = []
  for (const message of messages) {
    const {line, column} = positionAt(text, message.range[0] + shift)
    const privateKey = message.ruleId.endsWith('privatekey')
    if ((pem && privateKey) || findings.some((found) => found.line === line)) continue
    findings.push({path, kind: privateKey ? 'private-key' : 'credential', what: describeRule(message.ruleId, message.messageId), line, column})
  }
  return findings
}

/**
 * A key file as keygen writes it, named `*.key`: one line of base64 of a 32-byte Ed25519 seed, ended by a
 * line end of either kind or none.
 */
function isOwnPrivateKeyFile(path: string, text: string): boolean {
  if (!isOwnKeyName(path) || text.length > 64) return false
  return decodeBase64(text.replace(/(?:\r\n|\n|\r)$/, ''), keyLength) !== null
}

function isOwnKeyName(path: string): boolean {
  return path.toLowerCase().endsWith('.key')
}

/**
 * The 1-based line and column (UTF-16 code units, a leading byte order mark not counted) of character
 * `offset` of `text`; computed only for a secret found, so it costs nothing for a clean file.
 */
function positionAt(text: string, offset: number): {line: number; column: number} {
  let line = 1
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++
    start = index + 1
  }
  return {line, column: offset - start + 1}
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
