import assert from 'node:assert/strict'
import {cp, mkdir, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {XMLParser} from 'fast-xml-parser'
import {runCli, tempDir} from '../helpers/cli.js'
import {repoRoot} from '../fixtures/corpus.js'
import {assertValidSarif} from '../report/sarif-schema.js'

const fixtures = path.join(repoRoot, 'fixtures')
const validateSchema = new Ajv2020({allErrors: true}).compile(JSON.parse(await readFile(path.join(repoRoot, 'docs', 'json', 'validate.schema.json'), 'utf8')))
/** A GitHub token of the documented shape (not a real one), on line 3 of config/app.js, from column 16. */
const appJs = 'const a = 1\n\nconst token = "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"\n'
const junitParser = new XMLParser({ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'failure'].includes(name)})

describe('CI findings where they are', () => {
  // A repository of its own: repo/.git and repo/plugins/{warned, secret, secret-copy}.
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let repo: string
  before(async () => {
    scratch = await tempDir('svc-plugin-findings-')
    repo = path.join(scratch.dir, 'repo')
    await mkdir(path.join(repo, '.git'), {recursive: true})
    for (const name of ['warned', 'secret', 'secret-copy']) await cp(path.join(fixtures, 'example-plugin'), path.join(repo, 'plugins', name), {recursive: true})
    const manifestFile = path.join(repo, 'plugins', 'warned', 'manifest.json')
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'))
    manifest.permissions.push('host:coffee-machine')
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)
    for (const name of ['secret', 'secret-copy']) {
      await mkdir(path.join(repo, 'plugins', name, 'config'))
      await writeFile(path.join(repo, 'plugins', name, 'config', 'app.js'), appJs)
    }
  })
  after(async () => {
    await scratch.cleanup()
  })

  describe('--max-warnings', () => {
    it('fails with exit 1 and a last line saying why when the warnings exceed n, passes at n or above, and -1 or no flag allows any number', async () => {
      const run = (...args: string[]) => runCli(['validate', 'plugins/warned', ...args], {cwd: repo})
      const over = await run('--max-warnings', '0')
      assert.equal(over.status, 1)
      assert.equal(over.stdout.trimEnd().split('\n').at(-1), 'error too-many-warnings: 1 warning found; --max-warnings 0 allows none.')
      for (const args of [['--max-warnings', '1'], ['--max-warnings', '-1'], ['--max-warnings=-1'], []]) {
        const within = await run(...args)
        assert.equal(within.status, 0, args.join(' '))
        assert.doesNotMatch(within.stdout, /too-many-warnings/)
      }
    })

    it('is reported by --json (validated by the documented schema) and by every CI format', async () => {
      const json = await runCli(['validate', 'plugins/warned', '--max-warnings', '0', '--json'], {cwd: repo})
      assert.equal(json.status, 1)
      const document = JSON.parse(json.stdout) as {maxWarnings: unknown}
      assert.ok(validateSchema(document), JSON.stringify(validateSchema.errors))
      assert.deepEqual(document.maxWarnings, {limit: 0, warnings: 1, exceeded: true})
      const several = JSON.parse((await runCli(['validate', 'plugins/warned', 'plugins/secret', '--max-warnings', '5', '--json'], {cwd: repo})).stdout) as {maxWarnings: unknown}
      assert.ok(validateSchema(several), JSON.stringify(validateSchema.errors))
      assert.deepEqual(several.maxWarnings, {limit: 5, warnings: 1, exceeded: false})
      const format = async (name: string) => {
        const result = await runCli(['validate', 'plugins/warned', '--max-warnings', '0', '--format', name], {cwd: repo})
        assert.equal(result.status, 1, name)
        return result.stdout
      }
      const sarif = JSON.parse(await format('sarif'))
      assertValidSarif(sarif)
      assert.deepEqual(sarif.runs[0].invocations[0].toolExecutionNotifications.map((item: {descriptor: {id: string}}) => item.descriptor.id), ['too-many-warnings'])
      assert.match(await format('github'), /^::error title=too-many-warnings::1 warning found; --max-warnings 0 allows none\.$/m)
      const junit = junitParser.parse(await format('junit')).testsuites.testsuite.at(-1)
      assert.equal(junit.testcase[0].failure[0].type, 'too-many-warnings')
      const gitlab = JSON.parse(await format('gitlab'))
      assert.deepEqual(gitlab.at(-1).location, gitlab.find((issue: {check_name: string}) => issue.check_name === 'unknown-permission').location)
    })

    it('takes only a whole number of at least -1 (exit 2)', async () => {
      for (const value of ['x', '-2', '1.5']) assert.equal((await runCli(['validate', 'plugins/warned', `--max-warnings=${value}`], {cwd: repo})).status, 2, value)
    })
  })

  describe('a secret in config/app.js line 3', () => {
    const args = ['validate', 'plugins/secret', '--level', 'package']

    it('text and JSON name that file and line', async () => {
      const text = await runCli(args, {cwd: repo})
      assert.equal(text.status, 1)
      assert.match(text.stdout, /^error secret-detected: "config\/app\.js" \(line 3\) holds a credential \(GITHUB TOKEN\); .*\n {2}at plugins\/secret\/config\/app\.js:3:16$/m)
      const document = JSON.parse((await runCli([...args, '--json'], {cwd: repo})).stdout) as {problems: Array<Record<string, unknown>>}
      assert.ok(validateSchema(document), JSON.stringify(validateSchema.errors))
      const [problem] = document.problems
      assert.deepEqual([problem.code, problem.file, problem.pointer, problem.line, problem.column], ['secret-detected', path.join('plugins', 'secret', 'config', 'app.js'), null, 3, 16])
    })

    it('SARIF, GitHub annotations and GitLab place it at that file and line, not at manifest.json', async () => {
      const sarif = JSON.parse((await runCli([...args, '--format', 'sarif'], {cwd: repo})).stdout)
      assertValidSarif(sarif)
      const [result] = sarif.runs[0].results
      assert.equal(result.ruleId, 'secret-detected')
      assert.deepEqual(result.locations[0].physicalLocation.artifactLocation, {uri: 'plugins/secret/config/app.js', uriBaseId: '%SRCROOT%'})
      assert.deepEqual(result.locations[0].physicalLocation.region, {startLine: 3, startColumn: 16})
      assert.equal(result.locations[0].logicalLocations, undefined)
      const github = (await runCli([...args, '--format', 'github'], {cwd: repo})).stdout
      assert.match(github, /^::error file=plugins\/secret\/config\/app\.js,line=3,col=16,title=secret-detected::/)
      const gitlab = JSON.parse((await runCli([...args, '--format', 'gitlab'], {cwd: repo})).stdout)
      assert.deepEqual(gitlab[0].location, {path: 'plugins/secret/config/app.js', lines: {begin: 3}})
    })

    it('inside an artifact, it is placed at the artifact, the path and line inside leading the message', async () => {
      const packed = path.join(repo, 'dist', 'secret.svcPlugin')
      assert.equal((await runCli(['pack', 'plugins/secret', '--output', packed, '--allow-secret', 'config/app.js'], {cwd: repo})).status, 0)
      const sarif = JSON.parse((await runCli(['validate', 'dist/secret.svcPlugin', '--format', 'sarif'], {cwd: repo})).stdout)
      const result = sarif.runs[0].results.find((item: {ruleId: string}) => item.ruleId === 'secret-detected')
      assert.deepEqual(result.locations[0].physicalLocation, {artifactLocation: {uri: 'dist/secret.svcPlugin', uriBaseId: '%SRCROOT%'}})
      assert.match(result.message.text, /^config\/app\.js:3 \(inside the artifact\): /)
      assert.deepEqual([result.properties.innerPath, result.properties.innerLine], ['config/app.js', 3])
      const document = JSON.parse((await runCli(['validate', 'dist/secret.svcPlugin', '--json'], {cwd: repo})).stdout)
      assert.equal(document.problems.find((item: {code: string}) => item.code === 'secret-detected').file, 'dist/secret.svcPlugin!config/app.js')
    })
  })

  it('a refusal pack would make of one entry (a symbolic link) is placed at that entry', async () => {
    const folder = path.join(repo, 'plugins', 'linked')
    await cp(path.join(fixtures, 'example-plugin'), folder, {recursive: true})
    await symlink('../README.md', path.join(folder, 'assets', 'link.md'))
    try {
      const sarif = JSON.parse((await runCli(['validate', 'plugins/linked', '--level', 'package', '--format', 'sarif'], {cwd: repo})).stdout)
      const result = sarif.runs[0].results.find((item: {ruleId: string}) => item.ruleId === 'source-entry-rejected')
      assert.deepEqual(result.locations[0].physicalLocation, {artifactLocation: {uri: 'plugins/linked/assets/link.md', uriBaseId: '%SRCROOT%'}})
    } finally {
      await rm(folder, {recursive: true, force: true})
    }
  })

  describe('JUnit', () => {
    it('names suites by path, so two folders of one plugin id are two suites, each failure its own test case', async () => {
      const result = await runCli(['validate', 'plugins/secret', 'plugins/secret-copy', '--level', 'package', '--format', 'junit'], {cwd: repo})
      assert.equal(result.status, 1)
      const suites = junitParser.parse(result.stdout).testsuites.testsuite
      assert.deepEqual(
        suites.map((suite: {name: string}) => suite.name),
        ['plugins/secret', 'plugins/secret-copy'],
      )
      for (const suite of suites) {
        assert.deepEqual(
          suite.testcase.map((testcase: {name: string; file: string; line: string; failure: unknown[]}) => [testcase.name, testcase.file, testcase.line, testcase.failure.length]),
          [['secret-detected in config/app.js:3:16', `${suite.name}/config/app.js`, '3', 1]],
        )
      }
    })
  })
})
