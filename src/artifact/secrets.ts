import {isAscii} from 'node:buffer'
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
/** What every match of {@link pemPrivateKey} and {@link puttyPrivateKey} holds: a file without it has no key header. */
const pemMarker = '-----BEGIN '
const puttyMarker = 'PuTTY-User-Key-File-'

/**
 * The credential rules, loaded on first use: a command that never looks for secrets (verify, install)
 * starts without them.
 */
let credentialRules: Promise<(text: string, filePath: string) => ReturnType<typeof import('@secretlint/core').lintSource>> | undefined
function loadCredentialRules() {
  credentialRules ??= Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]).then(([{lintSource}, {creator}]) => {
    const config = {rules: [{id: '@secretlint/secretlint-rule-preset-recommend', rule: creator}]}
    return (text: string, filePath: string) => lintSource({source: {filePath, content: text, contentType: 'text'}, options: {config}})
  })
  return credentialRules
}

/** True for a `.env` file by its name, wherever it is in the tree. */
export function isEnvironmentFile(path: string): boolean {
  return environmentFile.test(path.slice(path.lastIndexOf('/') + 1))
}

/**
 * Every secret found in one file of a package: by its name (`.env`), then, for a file of at most
 * {@link maxScannedBytes} that is text, by its content. Never throws: a file that cannot be judged holds
 * nothing the rules recognise.
 */
export function findSecrets(path: string, bytes: Uint8Array): Promise<SecretFinding[]> {
  const scanner = new SecretScanner()
  scanner.add(path, bytes)
  return scanner.findings()
}

/** Text gathered for one run of the credential rules: many small files cost one run, not one each. */
const batchChars = 256 * 1024

/** What starts every comment that tells the credential rules to ignore lines (`secretlint-disable`, `-enable`, `-disable-line`…). */
const directivePrefix = 'secretlint-'

interface BatchedFile {
  path: string
  /** Offset of the file's first character in the batch. */
  start: number
  /** Whether a private key was already found in it by its PEM or PuTTY header. */
  pem: boolean
}

/**
 * Looks for secrets in the files of a package as they are read, each file's bytes handed over once
 * ({@link SecretScanner.add}, synchronous: the bytes may be reused right after). Names and key headers
 * are judged at once; text is gathered into batches for the credential rules, which run while the
 * reading goes on. {@link SecretScanner.findings} waits for the last batch.
 */
export class SecretScanner {
  readonly #found: SecretFinding[] = []
  readonly #runs: Promise<void>[] = []
  readonly #pending = new Set<Promise<void>>()
  /** The batch's text as UTF-8, `#bytes` of it used: decoded once per batch, not once per file. */
  #batch = Buffer.allocUnsafe(0)
  #bytes = 0
  #files: BatchedFile[] = []
  #chars = 0

  /**
   * Judges the file `path`: its name always; its content when `bytes` are given (null: the file was
   * too large to be read whole) and it is text of at most {@link maxScannedBytes}.
   */
  add(path: string, bytes: Uint8Array | null): void {
    if (isEnvironmentFile(path)) {
      this.#found.push({path, kind: 'environment-file', what: 'an environment file (.env), which holds the values of secrets', line: null})
      return
    }
    if (bytes === null || bytes.byteLength > maxScannedBytes || looksBinary(bytes)) return
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    // An ASCII file's bytes are its text, and what is looked for here (key headers, comments for the
    // rules) is ASCII: the same bytes in a file as in its text. So the text of a file is made only when
    // it is needed; an ASCII file joins its batch as bytes.
    let text = isAscii(view) ? null : view.toString('utf8')
    const textOf = (): string => (text ??= view.toString('utf8'))
    const pem = view.includes(pemMarker) || view.includes(puttyMarker) ? (pemPrivateKey.exec(textOf()) ?? puttyPrivateKey.exec(textOf())) : null
    if (pem !== null) this.#found.push({path, kind: 'private-key', what: 'a private key', line: lineAt(textOf(), pem.index)})
    else if (isOwnPrivateKeyFile(path, bytes)) this.#found.push({path, kind: 'private-key', what: 'an svc-plugin private key (keygen writes them as <name>.key)', line: 1})
    if (view.includes(directivePrefix)) {
      // A `secretlint-disable` comment holds until the end of the text the rules are given: in a batch
      // it would silence the files after this one. Such a file is judged alone, as if no other were read.
      this.#start(textOf(), [{path, start: 0, pem: pem !== null}])
      return
    }
    this.#files.push({path, start: this.#chars, pem: pem !== null})
    // Other text goes in as the UTF-8 of its text, which decodes to that text again, whatever the file held.
    const length = text === null ? view.length : Buffer.byteLength(text)
    this.#reserve(length + 2)
    this.#bytes += text === null ? view.copy(this.#batch, this.#bytes) : this.#batch.write(text, this.#bytes, 'utf8')
    // Two newlines between files: no rule reads one file's last line as part of the next one's first.
    this.#bytes += this.#batch.write('\n\n', this.#bytes, 'latin1')
    this.#chars += (text === null ? view.length : text.length) + 2
    if (this.#chars >= batchChars) this.#run()
  }

  /** Makes room for `bytes` more in the batch. */
  #reserve(bytes: number): void {
    if (this.#bytes + bytes <= this.#batch.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.#bytes + bytes, batchChars + 2 * 1024, this.#batch.length * 2))
    this.#batch.copy(grown, 0, 0, this.#bytes)
    this.#batch = grown
  }

  /** Every secret found, sorted by path and line, once the credential rules are done with every batch. */
  async findings(): Promise<SecretFinding[]> {
    this.#run()
    await Promise.all(this.#runs)
    return [...this.#found].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0)))
  }

  /**
   * A promise that resolves once at most one batch is waiting for the credential rules, or undefined when
   * that is already so. A reader that can wait awaits it
   * after each {@link SecretScanner.add}, so that the text held does not grow when reading outpaces the rules.
   */
  room(): Promise<void> | undefined {
    return this.#pending.size > 1 ? this.#waitForRoom() : undefined
  }

  async #waitForRoom(): Promise<void> {
    while (this.#pending.size > 1) await Promise.race(this.#pending)
  }

  #run(): void {
    if (this.#files.length === 0) return
    const text = this.#batch.toString('utf8', 0, this.#bytes)
    const files = this.#files
    this.#bytes = 0
    this.#files = []
    this.#chars = 0
    this.#start(text, files)
  }

  /** Starts a run of the credential rules over `text`, which holds `files`. */
  #start(text: string, files: readonly BatchedFile[]): void {
    const run = this.#lint(text, files)
    // A failing run is reported by findings(); here it only stops taking room.
    const pending: Promise<void> = run.catch(() => undefined).finally(() => this.#pending.delete(pending))
    this.#pending.add(pending)
    this.#runs.push(run)
  }

  async #lint(text: string, files: readonly BatchedFile[]): Promise<void> {
    // Not finding the rules is a broken installation, not a clean package: that failure is not swallowed.
    const lint = await loadCredentialRules()
    let messages
    try {
      messages = (await lint(text, files[0]!.path)).messages
    } catch {
      // A rule that fails on strange text finds nothing in it.
      return
    }
    for (const message of messages) {
      const file = files[fileAt(files, message.range[0])]!
      const line = lineAt(text, message.range[0], file.start)
      const privateKey = message.ruleId.endsWith('privatekey')
      // The private-key rule repeats what the header check says more precisely; two rules matching one
      // line (an npm token in an .npmrc) are one mistake.
      if (file.pem && privateKey) continue
      if (this.#found.some((found) => found.path === file.path && found.line === line)) continue
      this.#found.push({path: file.path, kind: privateKey ? 'private-key' : 'credential', what: describeRule(message.ruleId, message.messageId), line})
    }
  }
}

/** Index of the file of a batch that holds character `offset`. */
function fileAt(files: readonly BatchedFile[], offset: number): number {
  let low = 0
  let high = files.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (files[middle]!.start <= offset) low = middle
    else high = middle - 1
  }
  return low
}

/** A key file as keygen writes it, named `*.key`: one line of base64 of a 32-byte Ed25519 seed. */
function isOwnPrivateKeyFile(path: string, bytes: Uint8Array): boolean {
  return path.toLowerCase().endsWith('.key') && bytes.byteLength <= 64 && decodeBase64Line(bytes, keyLength) !== null
}

/** A NUL byte among the first 8 KiB: a binary file, whose bytes are not read as text. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0)
}

/** The 1-based line of character `offset` of `text`, counting from character `from`. */
function lineAt(text: string, offset: number, from = 0): number {
  let line = 1
  for (let index = text.indexOf('\n', from); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line++
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
