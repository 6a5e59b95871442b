import assert from 'node:assert/strict'
import {execFileSync, spawn} from 'node:child_process'
import {cp, mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {XMLParser, XMLValidator} from 'fast-xml-parser'
import {cliPath, runCli, tempDir} from '../helpers/cli.js'
import {repoRoot} from '../fixtures/corpus.js'
import {joinZip, newRecord, splitZip} from '../helpers/zip-splice.js'
import {assertValidSarif} from '../report/sarif-schema.js'

const fixtures = path.join(repoRoot, 'fixtures')
const validateSchema = new Ajv2020({allErrors: true}).compile(JSON.parse(await readFile(path.join(repoRoot, 'docs', 'json', 'validate.schema.json'), 'utf8')))

function assertDocumented(document: unknown): void {
  assert.ok(validateSchema(document), JSON.stringify(validateSchema.errors, null, 2))
}

describe('svc-plugin validate in CI', () => {
  // A repository of its own: repo/.git, repo/plugins/{broken,example}.
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let repo: string
  before(async () => {
    scratch = await tempDir('svc-plugin-ci-')
    repo = path.join(scratch.dir, 'repo')
    await mkdir(path.join(repo, '.git'), {recursive: true})
    await cp(path.join(fixtures, 'broken-plugin'), path.join(repo, 'plugins', 'broken'), {recursive: true})
    await cp(path.join(fixtures, 'example-plugin'), path.join(repo, 'plugins', 'example'), {recursive: true})
  })
  after(async () => {
    await scratch.cleanup()
  })

  describe('several subjects in one call', () => {
    it('text: every subject reported, then a count; the exit status is the worst', async () => {
      const result = await runCli(['validate', 'example', 'broken'], {cwd: path.join(repo, 'plugins')})
      assert.equal(result.status, 1)
      assert.match(result.stdout, /^com\.example\.weather-station 1\.4\.2: 0 errors, 0 warnings\.$/m)
      assert.match(result.stdout, /^com\.example\.weather-station 1\.4: 7 errors, 1 warning\.$/m)
      assert.equal(result.stdout.trimEnd().split('\n').at(-1), '2 subjects: 1 valid, 1 invalid, 0 not read.')
    })

    it('a glob pattern expands, sorted; a missing subject makes the status 3 and the others are still judged', async () => {
      const result = await runCli(['validate', 'plugins/*', 'plugins/missing', '--json'], {cwd: repo})
      assert.equal(result.status, 3)
      const document = JSON.parse(result.stdout)
      assertDocumented(document)
      assert.deepEqual(
        document.subjects.map((subject: {path: string}) => subject.path),
        ['plugins/broken', 'plugins/example', 'plugins/missing'],
      )
      assert.deepEqual(
        document.subjects.map((subject: {valid: boolean}) => subject.valid),
        [false, true, false],
      )
      assert.equal(document.subjects[2].error.code, 'file-not-found')
      assert.equal(document.valid, false)
    })

    it('a pattern that matches nothing is a subject that was not read', async () => {
      const result = await runCli(['validate', 'nothing-*', '--json'], {cwd: repo})
      assert.equal(result.status, 3)
      assert.deepEqual(JSON.parse(result.stdout).subjects, [{valid: false, path: 'nothing-*', error: {code: 'file-not-found', message: 'No file or folder matches nothing-*.'}}])
    })

    it('one subject keeps the one-report document, which the documented schema describes', async () => {
      const result = await runCli(['validate', 'plugins/broken', '--json'], {cwd: repo})
      assert.equal(result.status, 1)
      const document = JSON.parse(result.stdout)
      assertDocumented(document)
      assert.equal(document.path, 'plugins/broken')
      assert.equal(document.problems[0].file, path.join('plugins', 'broken', 'manifest.json'))
    })

    it('PATH arguments and a subject flag together are a usage error', async () => {
      const result = await runCli(['validate', 'a', 'b', '--manifest', 'c.json'], {cwd: repo})
      assert.equal(result.status, 2)
      assert.match(result.stderr, /too-many-selectors|Choose one way/)
    })

    it('sarif, github, junit and gitlab carry every subject', async () => {
      const cwd = repo
      const subjects = ['plugins/broken', 'plugins/example', 'plugins/broken/manifest.json']
      const sarif = JSON.parse((await runCli(['validate', ...subjects, '--format', 'sarif'], {cwd})).stdout)
      assertValidSarif(sarif)
      assert.equal(sarif.runs[0].results.length, 16)
      const github = (await runCli(['validate', ...subjects, '--format', 'github'], {cwd})).stdout.trimEnd().split('\n')
      assert.equal(github.length, 16)
      const junit = (await runCli(['validate', ...subjects, '--format', 'junit'], {cwd})).stdout
      assert.equal(XMLValidator.validate(junit), true)
      assert.equal(new XMLParser({ignoreAttributes: false, attributeNamePrefix: ''}).parse(junit).testsuites.testsuite.length, 3)
      const gitlab = JSON.parse((await runCli(['validate', ...subjects, '--format', 'gitlab'], {cwd})).stdout)
      assert.equal(gitlab.length, 16)
      assert.ok(gitlab.every((issue: {location: {path: string}}) => issue.location.path === 'plugins/broken/manifest.json'))
    })
  })

  describe('sarif for code scanning', () => {
    it('run from a subfolder, URIs are relative to the enclosing work tree under %SRCROOT%', async () => {
      const result = await runCli(['validate', 'broken', '--format', 'sarif'], {cwd: path.join(repo, 'plugins')})
      assert.equal(result.status, 1)
      const log = JSON.parse(result.stdout)
      assertValidSarif(log)
      const run = log.runs[0]
      assert.equal(run.originalUriBaseIds['%SRCROOT%'].uri, `file://${repo}/`)
      assert.equal(run.invocations[0].executionSuccessful, true)
      for (const item of run.results) {
        assert.deepEqual(item.locations[0].physicalLocation.artifactLocation, {uri: 'plugins/broken/manifest.json', uriBaseId: '%SRCROOT%'})
      }
      for (const rule of run.tool.driver.rules) {
        assert.ok(rule.shortDescription.text && rule.fullDescription.text && rule.help.text && rule.help.markdown)
        // package.json names no place that publishes the pages: each rule carries its page.
        assert.equal(rule.helpUri, undefined)
        assert.ok(rule.help.markdown.startsWith(`# \`${rule.id}\``))
      }
    })

    it('a problem inside an artifact is located at the artifact file, the inner path in the message', async () => {
      const packed = path.join(repo, 'dist', 'example.svcPlugin')
      assert.equal((await runCli(['pack', 'plugins/example', '--output', packed], {cwd: repo})).status, 0)
      // An entry added after packing, which files[] does not declare.
      const records = splitZip(await readFile(packed))
      records.push(newRecord({name: 'extra.txt', content: Buffer.from('added later')}))
      await writeFile(packed, joinZip(records))
      try {
        const result = await runCli(['validate', 'example.svcPlugin', '--format', 'sarif'], {cwd: path.join(repo, 'dist')})
        assert.equal(result.status, 1)
        const log = JSON.parse(result.stdout)
        assertValidSarif(log)
        const finding = log.runs[0].results.find((item: {ruleId: string}) => item.ruleId === 'undeclared-file')
        assert.deepEqual(finding.locations[0].physicalLocation, {artifactLocation: {uri: 'dist/example.svcPlugin', uriBaseId: '%SRCROOT%'}})
        assert.match(finding.message.text, /^manifest\.json(:\d+)? \(inside the artifact\): /)
        assert.equal(finding.properties.innerPath, 'manifest.json')
      } finally {
        await rm(path.join(repo, 'dist'), {recursive: true, force: true})
      }
    })

    it('--root names the root instead', async () => {
      const log = JSON.parse((await runCli(['validate', 'broken', '--format', 'sarif', '--root', '.'], {cwd: path.join(repo, 'plugins')})).stdout)
      assert.equal(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, 'broken/manifest.json')
    })

    it('a subject that cannot be read still prints a valid log, and the status stays 3', async () => {
      const result = await runCli(['validate', 'plugins/missing', '--format', 'sarif'], {cwd: repo})
      assert.equal(result.status, 3)
      const log = JSON.parse(result.stdout)
      assertValidSarif(log)
      assert.equal(log.runs[0].invocations[0].executionSuccessful, false)
      assert.equal(log.runs[0].invocations[0].toolExecutionNotifications[0].descriptor.id, 'file-not-found')
    })

    it('the text form still reports an unreadable subject on stderr with status 3', async () => {
      const result = await runCli(['validate', 'plugins/missing'], {cwd: repo})
      assert.equal(result.status, 3)
      assert.equal(result.stdout, '')
      assert.match(result.stderr, /missing/)
    })
  })

  describe('GitHub Actions', () => {
    it('GITHUB_ACTIONS=true makes github the default format and appends a summary table to $GITHUB_STEP_SUMMARY', async () => {
      const summary = path.join(scratch.dir, 'summary.md')
      await writeFile(summary, 'before\n')
      const env = {GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary}
      const result = await runCli(['validate', 'plugins/broken', 'plugins/example'], {cwd: repo, env})
      assert.equal(result.status, 1)
      assert.ok(result.stdout.split('\n').every((line) => line === '' || line.startsWith('::')), result.stdout)
      const written = await readFile(summary, 'utf8')
      assert.ok(written.startsWith('before\n### svc-plugin validate\n'))
      // Every punctuation character of a value is escaped for Markdown.
      assert.ok(written.includes('\n| com\\.example\\.weather\\-station 1\\.4 | invalid \\(development\\) | 7 | 1 |\n'), written)
      assert.ok(written.includes('\n| com\\.example\\.weather\\-station 1\\.4\\.2 | valid \\(development\\) | 0 | 0 |\n'), written)
    })

    it('a $GITHUB_STEP_SUMMARY that is a FIFO nobody reads is a warning, not a process that never ends', async (t) => {
      const fifo = path.join(scratch.dir, 'summary.fifo')
      try {
        execFileSync('mkfifo', [fifo], {stdio: 'ignore'})
      } catch {
        return t.skip('no mkfifo here')
      }
      // SIGKILL: a process blocked opening the FIFO ignores the SIGTERM a timeout sends.
      const result = await new Promise<{status: number | null; signal: NodeJS.Signals | null; stderr: string}>((resolve, reject) => {
        const child = spawn(process.execPath, [cliPath, 'validate', 'plugins/example', '--format', 'github'], {
          cwd: repo,
          env: {...process.env, NO_COLOR: '1', GITHUB_STEP_SUMMARY: fifo},
          stdio: ['ignore', 'ignore', 'pipe'],
          timeout: 20_000,
          killSignal: 'SIGKILL',
        })
        let stderr = ''
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
        child.on('error', reject)
        child.on('close', (status, signal) => resolve({status, signal, stderr}))
      })
      assert.equal(result.signal, null, 'the process did not end by itself')
      assert.equal(result.status, 0, result.stderr)
      assert.match(result.stderr, /^warning: could not append the summary to /m)
    })

    it('--format given wins over GITHUB_ACTIONS', async () => {
      const result = await runCli(['validate', 'plugins/broken', '--format', 'text'], {cwd: repo, env: {GITHUB_ACTIONS: 'true'}})
      assert.match(result.stdout, /^error invalid-version: /m)
    })
  })
})
