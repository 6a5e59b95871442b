import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {readFolderContent} from '../../src/artifact/folder.js'
import {SecretScanner, findSecrets, isEnvironmentFile} from '../../src/artifact/secrets.js'
import {validateArtifact} from '../../src/artifact/validate-artifact.js'
import {writeKeyPair} from '../../src/pki/keys.js'
import {validatePath} from '../../src/validate/validate-path.js'
import type {SecretFinding} from '../../src/manifest/content.js'
import {tempDir} from '../helpers/cli.js'
import {writeArtifact} from '../install/helpers/artifacts.js'

/** Credentials of the shapes a leak scanner knows, made up for the test (not real keys). */
export const fakeSecrets = {
  awsSecret: 'aws_secret_access_key = "Zq8mN3vR7tY2wK9pL4xC6bH1jF5gD0sA8eU3iO7y"\n',
  npmToken: '//registry.npmjs.org/:_authToken=npm_Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8Vb7\n',
  githubToken: 'const token = "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"\n',
}

describe('finding secrets in a package', () => {
  let dir: string
  let cleanup: () => Promise<void>
  let pem: string
  let ownKey: Buffer
  before(async () => {
    ;({dir, cleanup} = await tempDir('svc-plugin-secrets-'))
    execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', path.join(dir, 'k.pem')])
    pem = await readFile(path.join(dir, 'k.pem'), 'utf8')
    ownKey = await readFile((await writeKeyPair(dir, 'publisher')).privateKeyFile)
  })
  after(async () => cleanup())

  const kinds = async (name: string, content: string | Buffer) => (await findSecrets(name, Buffer.from(content))).map((found) => [found.kind, found.line])

  it('places a secret at its line and column (UTF-16 code units; a byte order mark is not a column), whatever the line ends', async () => {
    const token = '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'
    const position = async (name: string, content: string | Buffer) => (await findSecrets(name, Buffer.from(content))).map((found) => [found.line, found.column])
    for (const end of ['\n', '\r\n']) {
      assert.deepEqual(await position('config/app.js', `const a = 1${end}${end}const token = "${token}"${end}`), [[3, 16]], JSON.stringify(end))
      assert.deepEqual(await position('config/app.js', `\ufeffconst token = "${token}"${end}`), [[1, 16]], JSON.stringify(end))
    }
    assert.deepEqual(await position('notes/é.txt', `éé ${token}\n`), [[1, 4]])
    assert.deepEqual(await position('assets/cert.txt', `notes\n  ${pem}`), [[2, 3]])
    assert.deepEqual(await position('.env', 'A=1\n'), [[null, undefined]])
  })

  it('knows a .env file by its name, not its templates', () => {
    for (const name of ['.env', 'config/.env.local', '.ENV.production']) assert.equal(isEnvironmentFile(name), true, name)
    for (const name of ['.env.example', 'config/.env.sample', 'env.txt', '.envrc.md']) assert.equal(isEnvironmentFile(name), false, name)
  })
  it('finds PEM (PKCS#8) private keys by content, whatever the file is called', async () => {
    assert.deepEqual(await kinds('assets/cert.txt', `notes\n${pem}`), [['private-key', 2]])
  })
  it('finds an OpenSSH private key', async () => {
    assert.deepEqual(await kinds('id_ed25519', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n'), [['private-key', 1]])
  })
  it("finds this toolchain's own private key files", async () => {
    assert.deepEqual(await kinds('publisher.key', ownKey), [['private-key', 1]])
    // The same bytes under another name are a public key file's shape too: only `.key` files are keys.
    assert.deepEqual(await kinds('publisher.pub', ownKey), [])
  })
  it('finds cloud and registry credentials with the maintained rule set', async () => {
    assert.deepEqual(await kinds('settings.ini', fakeSecrets.awsSecret), [['credential', 1]])
    assert.deepEqual(await kinds('.npmrc', fakeSecrets.npmToken), [['credential', 1]])
    assert.deepEqual(await kinds('src/app.js', fakeSecrets.githubToken), [['credential', 1]])
  })
  it('does not read binary files or files over 1 MiB for content', async () => {
    assert.deepEqual(await kinds('lib/native.so', Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0]), Buffer.from(pem)])), [])
    assert.deepEqual(await kinds('data/huge.txt', Buffer.concat([Buffer.from(pem), Buffer.alloc(1024 * 1024, 0x20)])), [])
  })

  it('reports secret-detected at package level on a folder and on an artifact, not at development level', async () => {
    const payload = {'runtimes/linux-x64/alpha': 'ELF', '.env': 'TOKEN=1\n', 'keys/signing.pem': pem}
    const artifact = await writeArtifact(path.join(dir, 'leaky.svcPlugin'), {payload})
    const report = await validateArtifact(artifact)
    assert.deepEqual(
      report.problems.filter((problem) => problem.code === 'secret-detected').map((problem) => problem.message.split(' holds ')[0]),
      ['".env"', '"keys/signing.pem" (line 1)'],
    )
    const source = path.join(dir, 'source')
    execFileSync('unzip', ['-q', artifact, '-d', source])
    const atPackage = await validatePath({directory: source}, {level: 'package', host: {rid: 'freebsd-x64'}})
    assert.deepEqual(atPackage.problems.filter((problem) => problem.code === 'secret-detected').length, 2)
    const atDevelopment = await validatePath({directory: source}, {host: {rid: 'freebsd-x64'}})
    assert.deepEqual(atDevelopment.problems.filter((problem) => problem.code === 'secret-detected'), [])
  })

  it('judges a folder by the files pack would ship: .svcpluginignore and operating-system files leave the package', async () => {
    const payload = {'runtimes/linux-x64/alpha': 'ELF', 'keys/signing.pem': pem, '.env': 'TOKEN=1\n', '.DS_Store': 'x', '__MACOSX/._alpha': 'x'}
    const artifact = await writeArtifact(path.join(dir, 'ignored.svcPlugin'), {payload})
    const source = path.join(dir, 'ignored-source')
    execFileSync('unzip', ['-q', artifact, '-d', source])
    await writeFile(path.join(source, '.svcpluginignore'), 'keys/\n.env\n')
    const report = await validatePath({directory: source}, {level: 'package', host: {rid: 'freebsd-x64'}})
    assert.deepEqual(report.problems.filter((problem) => problem.code === 'secret-detected'), [])
    const content = await readFolderContent(source, {digests: false, secrets: true})
    assert.deepEqual([...content.files.keys()], ['runtimes/linux-x64/alpha'])
  })

  it('finds each credential at its own line when many files share one run of the rules', async () => {
    const scanner = new SecretScanner()
    for (let index = 0; index < 300; index++) scanner.add(`f${index}.txt`, Buffer.from('line\n'.repeat(index % 7 + 1)))
    scanner.add('middle.npmrc', Buffer.from('a\nb\n//registry.npmjs.org/:_authToken=npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n'))
    for (let index = 0; index < 300; index++) scanner.add(`g${index}.txt`, Buffer.from('x'.repeat(900)))
    scanner.add('last.js', Buffer.from('const token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"'))
    assert.deepEqual(
      (await scanner.findings()).map((found) => `${found.path}:${found.line} ${found.kind}`),
      ['last.js:1 credential', 'middle.npmrc:3 credential'],
    )
  })

  it('finds each credential at its own line in a batch that mixes ASCII, other UTF-8 and bytes that are not UTF-8', async () => {
    const files: [string, Buffer][] = [
      ['a/accents.txt', Buffer.from('h\u00e9llo w\u00f6rld\n'.repeat(3))],
      ['b/emoji.md', Buffer.from(`\ufeff\u{1F600} one\n\u{1F600} two\n\u00df\n${fakeSecrets.githubToken}`)],
      ['c/broken.txt', Buffer.concat([Buffer.from('x\ny\n'), Buffer.from([0xff, 0xfe, 0x41, 0xe2, 0x82])])],
      ['d/next.js', Buffer.from(fakeSecrets.githubToken)],
      ['e/ascii.js', Buffer.from(`// plain\n${fakeSecrets.githubToken}`)],
      ['f/key.txt', Buffer.from(`caf\u00e9\n${pem}`)],
    ]
    const scanner = new SecretScanner()
    for (const [name, content] of files) scanner.add(name, content)
    const where = (found: readonly SecretFinding[]) => found.map((secret) => `${secret.path}:${secret.line} ${secret.kind}`)
    const alone = (await Promise.all(files.map(([name, content]) => findSecrets(name, content)))).flat()
    assert.deepEqual(where(await scanner.findings()), where(alone))
    assert.deepEqual(where(alone), ['b/emoji.md:4 credential', 'd/next.js:1 credential', 'e/ascii.js:2 credential', 'f/key.txt:2 private-key'])
  })

  it("lets a file's secretlint-disable comment silence only that file, not the files read after it", async () => {
    const files: [string, string][] = [
      ['a/disables.js', `// secretlint-disable\n${fakeSecrets.githubToken}`],
      ['b/next.js', fakeSecrets.githubToken],
      ['c/last-line.js', 'x\n// secretlint-disable-next-line'],
      ['d/after.npmrc', fakeSecrets.npmToken],
    ]
    const scanner = new SecretScanner()
    for (const [name, content] of files) scanner.add(name, Buffer.from(content))
    const where = (found: readonly SecretFinding[]) => found.map((secret) => `${secret.path}:${secret.line} ${secret.kind}`)
    const alone = (await Promise.all(files.map(([name, content]) => findSecrets(name, Buffer.from(content))))).flat()
    assert.deepEqual(where(await scanner.findings()), where(alone))
    assert.deepEqual(where(alone), ['b/next.js:1 credential', 'd/after.npmrc:1 credential'])
  })
})
