/**
 * Regression cases for the defects the fuzzer found (see known-defects.ts), each reduced to its smallest
 * input. Not run yet: the file name does not end in `.test.ts`. Once a defect is fixed, move its case into
 * the test file of its area (or rename this file to `regressions.test.ts` when all are fixed) and delete
 * its entry from known-defects.ts.
 */
import assert from 'node:assert/strict'
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {InstallError} from '../../src/install/errors.js'
import {install} from '../../src/install/install.js'
import {levels} from '../../src/manifest/levels.js'
import {readManifest} from '../../src/manifest/read-manifest.js'
import {validateArtifact} from '../../src/artifact/validate-artifact.js'
import {validateManifest} from '../../src/manifest/validate.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {verifyUpload} from '../../src/store/verify-upload.js'
import {tempDir} from '../helpers/cli.js'
import {createSigner, writeArtifact, type TestSigner} from '../install/helpers/artifacts.js'
import {mutateArchive, type ArchiveMutation} from './archive-mutants.js'

const minimal = {manifestVersion: 1, id: 'com.example.alpha', name: 'Alpha', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'runtimes/linux-x64/alpha'}}}

/** The minimal manifest's text with `languages` given as JSON text. */
const withLanguages = (languages: string): string => `${JSON.stringify(minimal).slice(0, -1)},"languages":${languages}}`

const problemsOf = (text: string, level: (typeof levels)[number]) => validateManifest(text, {level}).problems.map(({code, severity, pointer, line, column}) => ({code, severity, pointer, line, column}))

describe('uniqueItems over objects with valueOf or toString members', () => {
  // Ajv's uniqueItems compares items with fast-deep-equal, which calls an object's own `valueOf` or
  // `toString` member as a method: a manifest that names them threw a TypeError out of every validator.
  for (const member of ['valueOf', 'toString']) {
    const hostile = withLanguages(`[{"${member}":1},{"${member}":1}]`)
    const innocent = withLanguages('[{"member":1},{"member":1}]')

    it(`reports languages [{"${member}":1},{"${member}":1}] exactly like two equal objects without that member, at every level`, () => {
      for (const level of levels) assert.deepEqual(problemsOf(hostile, level), problemsOf(innocent, level), level)
    })

    it(`readManifest refuses it with a report, not an exception (${member})`, () => {
      const read = readManifest(new TextEncoder().encode(hostile))
      assert.equal(read.manifest, null)
      assert.ok(read.report.problems.some((problem) => problem.pointer?.startsWith('/languages/')))
    })
  }

  describe('inside an artifact', () => {
    let work: {dir: string; cleanup: () => Promise<void>}
    let artifact: string
    before(async () => {
      work = await tempDir('svc-plugin-regression-')
      artifact = await writeArtifact(path.join(work.dir, 'hostile-languages.svcPlugin'), {manifest: {languages: [{valueOf: 1}, {valueOf: 1}]}})
    })
    after(() => work.cleanup())

    it('validateArtifact reports the languages as invalid', async () => {
      const report = await validateArtifact(artifact)
      assert.equal(report.valid, false)
      assert.ok(report.problems.some((problem) => problem.severity === 'error' && problem.pointer?.startsWith('/languages/')))
    })

    it('verifyUpload reports them and refuses the upload', async () => {
      const report = await verifyUpload(artifact, {account: {name: 'Example Labs', id: 'com.example'}, trust: {roots: []}})
      assert.equal(report.accepted, false)
      assert.ok(report.problems.some((problem) => problem.pointer?.startsWith('/languages/')))
    })

    it('install refuses it as manifest-invalid', async () => {
      await assert.rejects(install(artifact, {dataRoot: path.join(work.dir, 'data'), hostRid: 'linux-x64', allowUnsigned: true}), (error: unknown) => error instanceof InstallError && error.code === 'manifest-invalid')
    })
  })
})

/**
 * Bytes added to a signed artifact where no digest looks: the signature covers entry names and inflated
 * contents, so each of these let one signature fit endlessly many files, and let unsigned payload ride in a
 * Trusted, store-accepted artifact. Each must be refused by the strict reader.
 */
describe('unsigned bytes in a signed artifact', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let signer: TestSigner
  let signed: Buffer
  before(async () => {
    work = await tempDir('svc-plugin-regression-')
    signer = createSigner()
    signed = await readFile(await writeArtifact(path.join(work.dir, 'signed.svcPlugin'), {signer}))
  })
  after(() => work.cleanup())

  const cases: Array<{attack: string; mutation: ArchiveMutation}> = [
    {attack: 'a directory entry carrying bytes', mutation: {op: 'add-directory', name: 'junk/', data: new Uint8Array(Buffer.from('unsigned payload')), method: 8, declared: 'honest'}},
    {attack: 'a stored directory entry carrying bytes', mutation: {op: 'add-directory', name: 'assets/', data: new Uint8Array(Buffer.from('unsigned payload')), method: 0, declared: 'honest'}},
    {attack: 'an entry comment', mutation: {op: 'entry-comment', entry: 1, bytes: new Uint8Array(Buffer.from('unsigned payload'))}},
    {attack: 'an unknown extra field in the central record', mutation: {op: 'extra-field', entry: 1, where: 'central', id: 0xcafe, data: new Uint8Array(Buffer.from('unsigned payload'))}},
    {attack: 'an unknown extra field in the local header', mutation: {op: 'extra-field', entry: 1, where: 'local', id: 0xcafe, data: new Uint8Array(Buffer.from('unsigned payload'))}},
    {attack: 'an extended-timestamp extra field far longer than one', mutation: {op: 'extra-field', entry: 1, where: 'both', id: 0x5455, data: new Uint8Array(64)}},
  ]

  for (const {attack, mutation} of cases) {
    describe(attack, () => {
      let file: string
      before(async () => {
        file = path.join(work.dir, `${attack.replaceAll(' ', '-')}.svcPlugin`)
        await writeFile(file, mutateArchive(signed, [mutation]))
      })

      it('does not verify: the archive is Malformed', async () => {
        const result = await verifyArtifact(file, {trust: signer.trust, now: signer.now})
        assert.equal(result.verdict, 'Malformed')
        assert.ok(['archive-malformed', 'archive-unsupported'].includes(result.problems[0]?.archiveCode ?? ''), result.problems[0]?.message)
      })

      it('is not accepted by the store', async () => {
        const report = await verifyUpload(file, {account: {name: 'Example Labs', id: 'com.example'}, trust: signer.trust, now: signer.now})
        assert.equal(report.accepted, false)
        assert.equal(report.verdict, 'Malformed')
      })

      it('is not installed', async () => {
        await assert.rejects(install(file, {dataRoot: path.join(work.dir, 'data'), hostRid: 'linux-x64', trust: signer.trust, now: signer.now}), (error: unknown) => error instanceof InstallError && ['archive-malformed', 'archive-unsupported'].includes(error.code))
      })
    })
  }
})
