import {execFileSync} from 'node:child_process'
import {generateKeyPairSync, randomBytes} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {base64Line} from '../../src/pki/base64.js'

/**
 * Secrets of every shape the scan knows, made up for the tests (never issued): one or more for each credential
 * rule, private keys in every text and binary form, and the words the rules' keywords are made of.
 */

/** A string of `length` characters of `alphabet`, fixed by `seed` (tokens look random, tests stay repeatable). */
function token(seed: number, length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'): string {
  let state = seed * 2654435761 + 12345
  let text = ''
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648
    text += alphabet[state % alphabet.length]
  }
  return text
}

/** A 1Password service account token: `ops_` and the base64 of a JSON object ending in `fQ`. */
function onePasswordToken(): string {
  let json = `{"email":"${token(9, 20).toLowerCase()}@1passwordserviceaccounts.lcl","secretKey":"${token(10, 60)}","x":"`
  while ((json.length + 2) % 3 !== 1) json += 'y'
  return `ops_${Buffer.from(`${json}"}`).toString('base64')}`
}

/** Credentials each rule of the maintained set reports, with the file they are found in. */
export const credentialSamples: {rule: string; file: string; text: string}[] = [
  {rule: 'aws', file: 'config/aws.ini', text: `[default]\naws_secret_access_key = ${token(1, 40)}\n`},
  {rule: 'aws', file: 'src/aws.js', text: `const credentials = {SecretAccessKey: "${token(24, 40)}"}\n`},
  {rule: 'npm', file: 'src/publish.js', text: `const token = "npm_${token(2, 36)}"\n`},
  {rule: 'npm', file: 'config/.npmrc', text: `//registry.npmjs.org/:_authToken=${token(3, 24)}\n`},
  {rule: 'npm', file: 'package.json', text: `{"repository": "https://${token(4, 20)}:x-oauth-basic@github.com/acme/app.git"}\n`},
  {rule: 'basicauth', file: 'src/client.ts', text: `fetch('https://deploybot:${token(5, 12)}@build.internal.io/v1')\n`},
  {rule: 'basicauth', file: 'src/legacy.ts', text: `const feed = 'http://reader:${token(22, 12)}@feeds.example.net/rss'\n`},
  {rule: 'basicauth', file: 'scripts/upload.sh', text: `curl -T x ftp://uploader:${token(23, 12)}@files.example.net\n`},
  {rule: 'slack', file: 'bot.py', text: `SLACK = "xoxb-123456789012-${token(6, 24)}"\n`},
  {rule: 'slack', file: 'hooks.yml', text: `url: https://hooks.slack.com/services/T${token(7, 8)}/B${token(8, 8)}/${token(9, 24)}\n`},
  {rule: 'sendgrid', file: 'mail.rb', text: `key = 'SG.${token(10, 22)}.${token(11, 43)}'\n`},
  {rule: 'shopify', file: 'shop.env.json', text: `{"token": "shpat_${token(12, 32, '0123456789abcdef')}"}\n`},
  {rule: 'github', file: 'ci/deploy.sh', text: `export GH_TOKEN=ghp_${token(13, 36)}\n`},
  {rule: 'github', file: 'ci/release.sh', text: `export GH_TOKEN=github_pat_${token(14, 82)}\n`},
  {rule: 'openai', file: 'ai.py', text: `OPENAI = "sk-${token(15, 20)}T3BlbkFJ${token(16, 20)}"\n`},
  {rule: 'anthropic', file: 'ai.ts', text: `const key = "sk-ant-api03-${token(17, 93)}AA"\n`},
  {rule: 'linear', file: 'linear.ts', text: `const key = "lin_api_${token(18, 40)}"\n`},
  {rule: '1password', file: 'op.sh', text: `export OP_SERVICE_ACCOUNT_TOKEN=${onePasswordToken()}\n`},
  {rule: 'database-connection-string', file: 'db/mongo.ts', text: `const uri = "mongodb+srv://dbuser:${token(19, 12)}@cluster0.example.net/app"\n`},
  {rule: 'database-connection-string', file: 'db/pg.ts', text: `const uri = "postgres://svc:${token(20, 12)}@db.internal:5432/main"\n`},
  {rule: 'database-connection-string', file: 'db/my.ts', text: `const uri = "jdbc:MySQL://app:${token(21, 12)}@10.0.0.5/shop"\n`},
]

/**
 * Shapes of the rules' findings: the maintained set's own expressions (secretlint-rule-preset-recommend 11.7),
 * without their lookarounds and with shorter repeats, spelled with every case they accept, for fast-check to
 * write texts that match them.
 */
export const findingShapes: RegExp[] = [
  /^(?:AWS|aws|Aws)?_?(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)["']?\s{0,2}(?::|=>|=)\s{0,2}["']?[A-Za-z0-9/+=]{40}["']?$/,
  /^-----BEGIN ?(?:(?:RSA|DSA|EC|OPENSSH|PGP) )?PRIVATE KEY(?: BLOCK)?-----\n?MI[A-Za-z0-9+/=\s]{100,140}\n?-----END ?(?:(?:RSA|DSA|EC|OPENSSH|PGP) )?PRIVATE KEY(?: BLOCK)?-----$/,
  /^https?:\/\/[a-z0-9]{1,20}:x-oauth-basic@github\.com\/$/,
  /^_authToken=[$a-z0-9]{1,30}$/,
  /^npm_[A-Za-z0-9_]{36}$/,
  /^(?:https?|ftps?):\/\/[-a-zA-Z0-9_]{1,12}:[-a-zA-Z0-9_]{1,12}@[-a-zA-Z0-9%._+~#=]{1,20}\.[a-zA-Z0-9()]{1,6}$/,
  /^(?:xoxb|xoxp|xapp|xoxa|xoxo|xoxr)-(?:\d-)?(?:[a-zA-Z0-9]{1,10}-){1,3}[a-zA-Z0-9]{1,10}$/,
  /^[hH][tT][tT][pP][sS]:\/\/[hH][oO][oO][kK][sS]\.[sS][lL][aA][cC][kK]\.[cC][oO][mM]\/[sS][eE][rR][vV][iI][cC][eE][sS]\/[tT][a-zA-Z0-9]{1,10}\/[bB][a-zA-Z0-9]{1,10}\/[a-zA-Z0-9]{1,20}$/,
  /^SG\.\w{1,30}\.\w{1,30}[-_]?\w{1,30}$/,
  /^(?:shppa|shpca|shpat|shpss)_[a-zA-Z0-9]{32,40}$/,
  /^(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}$/,
  /^github_pat_[A-Za-z0-9_]{82}$/,
  /^sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20}$/,
  /^sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{58}T3BlbkFJ[A-Za-z0-9_-]{58}$/,
  /^sk-ant-api0\d-[A-Za-z0-9_-]{90,100}AA$/,
  /^lin_api_[a-zA-Z0-9_]{32,40}$/,
  /^[mM][oO][nN][gG][oO][dD][bB](?:\+[sS][rR][vV])?:\/\/(?:[a-z]{1,10}:[A-Za-z0-9$%{}]{1,12}@)?[a-z0-9.]{1,20}(?:\/[a-z]{0,10})?$/,
  /^(?:[jJ][dD][bB][cC]:)?[mM][yY][sS][qQ][lL][xX]?:\/\/(?:[a-z]{1,10}:[A-Za-z0-9$%{}]{1,12}@)?[a-z0-9.]{1,20}$/,
  /^[pP][oO][sS][tT][gG][rR][eE][sS](?:[qQ][lL])?:\/\/(?:[a-z]{1,10}:[A-Za-z0-9$%{}]{1,12}@)?[a-z0-9.:]{1,20}$/,
  /^secretlint-(?:disable-next-line|disable-line|disable|enable)(?: [a-z@/*,-]{0,40})?$/,
]

/** Pieces of text the rules' keywords are made of (and what follows them in a finding), for random texts. */
export const keywordFragments = [
  'aws_', 'SECRET', 'secret_', 'Secret', 'ACCESS', '_access', 'access', '_KEY', 'key', ' = ', '=', ': ', '=>', '"', "'",
  '-----BEGIN', '-----BEGIN PRIVATE KEY-----', '-----END PRIVATE KEY-----', ' RSA', 'PRIVATE KEY', 'MII', 'b3BlbnNzaC1rZXktdjE',
  'npm_', '_authToken=', '_authtoken=', ':x-oauth-basic@github.com/', 'http://', 'https://', 'HTTPS://', 'ftp://', 'ftps://', '://',
  'user', ':', '@', 'example.com', 'xoxb-', 'xoxp-', 'xapp-', 'XOXB-', 'hooks.slack.com/services/', 'https://hooks.slack.com/services/T',
  'SG.', 'sg.', 'shpat_', 'shppa_', 'SHPAT_', 'ghp_', 'gho_', 'GHP_', 'github_pat_', 'T3BlbkFJ', 't3blbkfj', 'sk-', 'sk-ant-api0',
  'lin_api_', 'ops_ey', 'ops_', 'fQ==', 'mongodb://', 'MongoDB+srv://', 'mysql://', 'mysqlx://', 'jdbc:', 'postgres://', 'PostgreSQL://',
  'secretlint-disable', 'secretlint-enable', 'secretlint-disable-line', 'secretlint-disable-next-line', ' -- why', 'secretlint-',
  '\n', '\r\n', '\r', ' ', '\t', '/', '.', '-', '_', '\ufeff', '\u00e9', '\u{1F600}', '\u2028',
]

/** Paths the rules treat differently (the npm rule reads package files and `.npmrc` for more). */
export const samplePaths = ['src/app.js', '.npmrc', 'config/.npmrc', 'package.json', 'web/package-lock.json', 'creds.json', 'keys/ca.p12', 'README']

/** A private key file, in the form some tool writes it. */
export interface KeyFile {
  name: string
  file: string
  bytes: Buffer
  /** Whether its bytes are text (and can be written in another encoding or with other line ends). */
  text: boolean
}

/** Private keys as OpenSSL, Node.js, OpenSSH, PuTTY and svc-plugin's keygen write them, in PEM and in DER. */
export function privateKeyFiles(): KeyFile[] {
  const rsa = generateKeyPairSync('rsa', {modulusLength: 1024}).privateKey
  const ec = generateKeyPairSync('ec', {namedCurve: 'P-256'}).privateKey
  const ed25519 = generateKeyPairSync('ed25519').privateKey
  const pem = (name: string, file: string, text: string | Buffer): KeyFile => ({name, file, bytes: Buffer.from(text), text: true})
  const der = (name: string, file: string, bytes: Buffer): KeyFile => ({name, file, bytes, text: false})
  const files: KeyFile[] = [
    pem('PKCS#8 PEM (Ed25519)', 'keys/signing.pem', ed25519.export({format: 'pem', type: 'pkcs8'})),
    pem('PKCS#1 PEM (RSA)', 'keys/rsa.key', rsa.export({format: 'pem', type: 'pkcs1'})),
    pem('SEC1 PEM (EC)', 'certs/ec.pem', ec.export({format: 'pem', type: 'sec1'})),
    pem('encrypted PKCS#8 PEM', 'certs/enc.pem', ec.export({format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'x'})),
    pem('PuTTY key', 'keys/id.ppk', `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: test\nPublic-Lines: 2\n${'A'.repeat(64)}\n`),
    pem('svc-plugin key (keygen)', 'keys/publisher.key', base64Line(randomBytes(32))),
    der('PKCS#8 DER (RSA)', 'keys/rsa.der', rsa.export({format: 'der', type: 'pkcs8'})),
    der('PKCS#8 DER (Ed25519)', 'keys/ed.der', ed25519.export({format: 'der', type: 'pkcs8'})),
    der('PKCS#1 DER (RSA)', 'keys/rsa1.der', rsa.export({format: 'der', type: 'pkcs1'})),
    der('SEC1 DER (EC)', 'keys/ec.der', ec.export({format: 'der', type: 'sec1'})),
    der('encrypted PKCS#8 DER', 'keys/enc.der', ec.export({format: 'der', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'x'})),
  ]
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-secret-corpus-'))
  try {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test', '-f', path.join(dir, 'id')])
    const openSsh = readFileSync(path.join(dir, 'id'))
    files.push(pem('OpenSSH PEM', 'keys/id_ed25519', openSsh))
    const body = openSsh.toString('utf8').split('\n').filter((line) => line !== '' && !line.startsWith('-----')).join('')
    files.push(der('OpenSSH binary', 'keys/id.bin', Buffer.from(body, 'base64')))
    execFileSync('openssl', ['dsaparam', '-genkey', '-noout', '-out', path.join(dir, 'dsa.pem'), '1024'], {stdio: 'ignore'})
    execFileSync('openssl', ['dsa', '-in', path.join(dir, 'dsa.pem'), '-outform', 'DER', '-out', path.join(dir, 'dsa.der')], {stdio: 'ignore'})
    files.push(der('DSA DER (OpenSSL)', 'keys/dsa.der', readFileSync(path.join(dir, 'dsa.der'))))
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
  return files
}

/** The encodings the scan reads. */
export const encodings = ['utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be'] as const
/** One of {@link encodings}. */
export type Encoding = (typeof encodings)[number]

/** `text` written in `encoding`, with its byte order mark (none for plain UTF-8). */
export function encodeText(text: string, encoding: Encoding): Buffer {
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(text, 'utf8')
    case 'utf-8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])
    case 'utf-16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    case 'utf-16be':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])
  }
}

/** `text` with every line ending as `end`. */
export function withLineEnds(text: string, end: '\n' | '\r\n'): string {
  return text.replace(/\r?\n/g, end)
}
