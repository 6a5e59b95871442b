import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {cliPath, runCli, spawnCli, tempDir, type CliResult} from '../helpers/cli.js'
import {casePath, comparable, corpusDir, corpusHostRid, loadCases, repoRoot, type CorpusCase} from '../fixtures/corpus.js'
import {assertValidSarif} from '../report/sarif-schema.js'

const brokenPlugin = path.join(repoRoot, 'fixtures', 'broken-plugin')
const minimalManifest = path.join(corpusDir, 'valid', 'minimal.json')
const sourceFolder = path.join(corpusDir, 'valid', 'source-folder')
const warningOnly = path.join(corpusDir, 'invalid', 'unknown-permission.json')
const invalidId = path.join(corpusDir, 'invalid', 'invalid-plugin-id.json')

const hasScript = spawnSync('script', ['--version']).status === 0

/** Runs the CLI under `script`, which gives it a pseudo-terminal as stdout, and returns what it printed. */
function inTerminal(args: string[], env: Record<string, string>): string {
  const command = [process.execPath, cliPath, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ')
  const environment: NodeJS.ProcessEnv = {...process.env, ...env}
  if (env.NO_COLOR === undefined) delete environment.NO_COLOR
  const result = spawnSync('script', ['-qec', command, '/dev/null'], {cwd: repoRoot, env: environment, encoding: 'utf8'})
  return result.stdout
}

/** Runs `validate` and parses stdout as JSON. */
async function validateJson(args: string[], options: {cwd?: string} = {}): Promise<CliResult & {json: any}> {
  const result = await runCli(['validate', ...args], options)
  let json: unknown
  try {
    json = JSON.parse(result.stdout)
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.status}):\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
  return {...result, json}
}

/** Runs `work` over `items`, at most `limit` at a time (every case spawns a process). */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index] as T)
    }
  }
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker))
  return results
}

describe('svc-plugin validate', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  before(async () => {
    scratch = await tempDir('svc-plugin-validate-')
  })
  after(async () => {
    await scratch.cleanup()
  })

  describe('every case of fixtures/manifests/cases.json through --format json', () => {
    const cases = loadCases()
    let outcomes: Map<string, CliResult & {json: any}>
    before(async () => {
      const results = await inPool(cases, 4, async (entry: CorpusCase) => {
        const subject = await casePath(entry, scratch.dir)
        const selector = entry.kind === 'directory' ? '--directory' : '--manifest'
        const host = ['--rid', entry.rid ?? corpusHostRid, ...(entry.hostVersion === undefined ? [] : ['--host-version', entry.hostVersion])]
        return [entry.name, await validateJson([selector, subject, '--level', entry.level, '--format', 'json', ...host])] as const
      })
      outcomes = new Map(results)
    })

    for (const entry of cases) {
      const errors = entry.expect.some((expected) => expected.severity === 'error')
      it(`${entry.name}: exit ${errors ? 1 : 0} with exactly the expected diagnostics`, () => {
        const outcome = outcomes.get(entry.name)
        assert.ok(outcome)
        assert.equal(outcome.status, errors ? 1 : 0, outcome.stderr)
        assert.equal(outcome.json.valid, !errors)
        assert.equal(outcome.json.level, entry.level)
        assert.deepEqual(comparable(outcome.json.problems), comparable(entry.expect))
      })
    }
  })

  describe('exit status', () => {
    it('is 0 for a valid manifest', async () => {
      const result = await runCli(['validate', minimalManifest])
      assert.equal(result.status, 0, result.stderr)
    })

    it('is 0 when there are warnings only', async () => {
      const result = await validateJson(['--manifest', warningOnly, '--json'])
      assert.equal(result.status, 0)
      assert.equal(result.json.valid, true)
      assert.deepEqual(
        result.json.problems.map((problem: {code: string; severity: string}) => [problem.code, problem.severity]),
        [['unknown-permission', 'warning']],
      )
    })

    it('is 1 when there is an error', async () => {
      const result = await runCli(['validate', invalidId])
      assert.equal(result.status, 1)
    })

    it('is 2 for an unknown level, before anything is read', async () => {
      const result = await runCli(['validate', '--manifest', path.join(scratch.dir, 'absent.json'), '--level', 'production'])
      assert.equal(result.status, 2)
      assert.equal(result.stdout, '')
      assert.match(result.stderr, /production/)
    })

    it('is 2 for an unknown format', async () => {
      const result = await runCli(['validate', minimalManifest, '--format', 'xml'])
      assert.equal(result.status, 2)
      assert.equal(result.stdout, '')
    })

    it('is 2 (too-many-selectors) for two selectors, before anything is read', async () => {
      // Neither path exists: a 3 would mean something was read first.
      const result = await runCli(['validate', '--manifest', path.join(scratch.dir, 'absent.json'), '--directory', path.join(scratch.dir, 'absent')])
      assert.equal(result.status, 2)
      assert.match(result.stderr, /too-many-selectors/)
      assert.equal(result.stdout, '')
    })

    it('is 2 (too-many-selectors) for a positional path and a selector flag', async () => {
      const result = await runCli(['validate', minimalManifest, '--directory', sourceFolder])
      assert.equal(result.status, 2)
      assert.match(result.stderr, /too-many-selectors/)
    })

    it('is 2 for --json with another --format, with the JSON error shape on stdout', async () => {
      const result = await runCli(['validate', minimalManifest, '--json', '--format', 'sarif'])
      assert.equal(result.status, 2)
      assert.deepEqual(JSON.parse(result.stdout), {error: {code: 'usage', message: '--json conflicts with --format sarif.'}})
    })

    it('is 3 (file-not-found) for a missing manifest', async () => {
      const result = await runCli(['validate', '--manifest', path.join(scratch.dir, 'absent.json')])
      assert.equal(result.status, 3)
      assert.match(result.stderr, /file-not-found/)
      assert.equal(result.stdout, '')
    })

    it('is 3 (file-not-found) for a folder without manifest.json', async () => {
      const result = await runCli(['validate', '--directory', scratch.dir])
      assert.equal(result.status, 3)
      assert.match(result.stderr, /file-not-found/)
    })

    it('prints the error as JSON on stdout with --format json', async () => {
      const result = await validateJson(['--manifest', path.join(scratch.dir, 'absent.json'), '--format', 'json'])
      assert.equal(result.status, 3)
      assert.equal(result.json.error.code, 'file-not-found')
    })

    it('is 3 (not-an-artifact) for --artifact naming a file that is not a ZIP', async () => {
      const artifact = path.join(scratch.dir, 'com.example.minimal-1.0.0.svcPlugin')
      await writeFile(artifact, 'not a zip')
      const result = await runCli(['validate', '--artifact', artifact])
      assert.equal(result.status, 3, result.stderr)
      assert.match(result.stderr, /^error not-an-artifact: /m)
    })

    it('says that --artifact names a manifest, and that --manifest takes it', async () => {
      const result = await runCli(['validate', '--artifact', minimalManifest])
      assert.equal(result.status, 3)
      assert.match(result.stderr, /^error not-an-artifact: .*minimal\.json is a manifest \(JSON text\), not a \.svcPlugin artifact\. Pass it with --manifest, or as PATH, .*\n$/)
    })

    it('judges the host named by --rid, --host-version and --protocol', async () => {
      const folder = path.join(corpusDir, 'invalid', 'entrypoint-not-packed')
      const missing = await validateJson([folder, '--rid', 'linux-x64', '--json'])
      assert.equal(missing.status, 1)
      assert.deepEqual(missing.json.problems.map((problem: {code: string}) => problem.code), ['entrypoint-missing'])
      const present = await validateJson([folder, '--rid', 'win-x64', '--json'])
      assert.equal(present.status, 0)
      const tooOld = await validateJson([folder, '--rid', 'win-x64', '--host-version', '0.9.0', '--json'])
      assert.deepEqual(tooOld.json.problems.map((problem: {code: string; pointer: string}) => [problem.code, problem.pointer]), [['incompatible', '/compatibility/svc']])
    })

    it('is 3 (not-an-artifact) for a positional .svcPlugin that is not a ZIP', async () => {
      const artifact = path.join(scratch.dir, 'com.example.minimal-1.0.0.svcPlugin')
      await writeFile(artifact, 'not a zip')
      const result = await runCli(['validate', artifact])
      assert.equal(result.status, 3, result.stderr)
      assert.match(result.stderr, /^error not-an-artifact: /m)
    })
  })

  describe('the subject', () => {
    it('detects a positional manifest file', async () => {
      const result = await validateJson([minimalManifest, '--json'])
      assert.equal(result.status, 0)
      assert.equal(path.resolve(repoRoot, result.json.file), minimalManifest)
      assert.equal(result.json.id, 'com.example.minimal')
    })

    it('detects a positional folder and validates its manifest.json', async () => {
      const result = await validateJson([sourceFolder, '--json'])
      assert.equal(result.status, 0)
      assert.equal(path.resolve(repoRoot, result.json.file), path.join(sourceFolder, 'manifest.json'))
    })

    it('detects a positional folder and runs the package checks on its files', async () => {
      const result = await validateJson([path.join(corpusDir, 'invalid', 'entrypoint-not-packed'), '--level', 'package', '--rid', corpusHostRid, '--json'])
      assert.equal(result.status, 1)
      assert.deepEqual(
        result.json.problems.map((problem: {code: string}) => problem.code),
        ['entrypoint-not-packed'],
      )
    })

    it('validates ./manifest.json when no subject is given', async () => {
      const result = await validateJson(['--json'], {cwd: sourceFolder})
      assert.equal(result.status, 0, result.stderr)
      assert.equal(result.json.id, 'com.example.minimal')
      assert.equal(result.json.level, 'development')
    })
  })

  describe('formats, on the broken example plugin', () => {
    const args = ['validate', brokenPlugin, '--level', 'package']

    it('text: one line per diagnostic with its position, then the summary; nothing on stderr', async () => {
      const result = await runCli(args, {cwd: repoRoot})
      assert.equal(result.status, 1)
      assert.equal(result.stderr, '')
      const lines = result.stdout.trimEnd().split('\n')
      assert.equal(lines.at(-1), 'com.example.weather-station 1.4: 10 errors, 1 warning.')
      const diagnostics = lines.slice(0, -1)
      assert.equal(diagnostics.length, 22)
      for (let i = 0; i < diagnostics.length; i += 2) {
        assert.match(diagnostics[i]!, /^(error|warning) [a-z:-]+: .+ \[\/[^\]]*\]( \(package\))?$/)
        assert.match(diagnostics[i + 1]!, /^ {2}at fixtures\/broken-plugin\/manifest\.json:\d+:\d+$/)
      }
      assert.match(lines[0]!, /^error invalid-version: .+ \[\/version\]$/)
      assert.match(lines[1]!, /^ {2}at fixtures\/broken-plugin\/manifest\.json:6:\d+$/)
      assert.match(lines[2]!, /^error icon-declared-not-present: .+ \[\/icon\] \(package\)$/)
      assert.ok(lines.some((line) => /^warning unknown-permission: .+ \[\/permissions\/3\]$/.test(line)))
      assert.doesNotMatch(result.stdout, /\u001b/)
    })

    it('text on a terminal: the severity word is coloured, unless NO_COLOR or --no-color', {skip: hasScript ? false : 'util-linux script is not installed'}, () => {
      const colored = inTerminal([...args], {})
      assert.match(colored, /^\u001b\[31merror\u001b\[39m invalid-version: /, colored)
      assert.match(colored, /\u001b\[33mwarning\u001b\[39m unknown-permission: /, colored)
      assert.doesNotMatch(inTerminal([...args], {NO_COLOR: '1'}), /\u001b\[3/)
      assert.doesNotMatch(inTerminal([...args, '--no-color'], {}), /\u001b\[3/)
    })

    it('text with --quiet: the errors only, no warning and no summary', async () => {
      const result = await runCli([...args, '--quiet'])
      assert.equal(result.status, 1)
      const lines = result.stdout.trimEnd().split('\n').filter((line) => !line.startsWith('  at '))
      assert.equal(lines.length, 10)
      assert.ok(lines.every((line) => line.startsWith('error ')))
    })

    it('text with --no-color: no escape sequences', async () => {
      const result = await runCli([...args, '--no-color'], {env: {NO_COLOR: ''}})
      assert.equal(result.status, 1)
      assert.doesNotMatch(result.stdout, /\u001b/)
    })

    it('text: no colour when stdout is not a terminal, even without NO_COLOR', async () => {
      const result = await runCli(args, {env: {NO_COLOR: ''}})
      assert.doesNotMatch(result.stdout, /\u001b/)
    })

    it('json: the documented report document; --json prints the same', async () => {
      const viaFormat = await validateJson([brokenPlugin, '--level', 'package', '--format', 'json'])
      const viaJson = await validateJson([brokenPlugin, '--level', 'package', '--json'])
      assert.equal(viaFormat.status, 1)
      assert.equal(viaFormat.stdout, viaJson.stdout)
      assert.deepEqual(Object.keys(viaFormat.json), ['valid', 'id', 'version', 'level', 'path', 'file', 'problems'])
      assert.equal(viaFormat.json.valid, false)
      assert.equal(viaFormat.json.id, 'com.example.weather-station')
      assert.equal(viaFormat.json.level, 'package')
      assert.equal(viaFormat.json.problems.length, 11)
    })

    it('sarif: a valid SARIF 2.1.0 log with a rule per code and relative URIs', async () => {
      const result = await runCli([...args, '--format', 'sarif'], {cwd: repoRoot})
      assert.equal(result.status, 1)
      const log = JSON.parse(result.stdout)
      assertValidSarif(log)
      const run = log.runs[0]
      assert.equal(run.tool.driver.name, 'svc-plugin')
      const version = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')).version
      assert.equal(run.tool.driver.version, version)
      assert.equal(run.results.length, 11)
      assert.deepEqual(
        new Set(run.tool.driver.rules.map((rule: {id: string}) => rule.id)),
        new Set(run.results.map((item: {ruleId: string}) => item.ruleId)),
      )
      const versionResult = run.results.find((item: {ruleId: string}) => item.ruleId === 'invalid-version')
      assert.equal(versionResult.locations[0].physicalLocation.artifactLocation.uri, 'fixtures/broken-plugin/manifest.json')
      assert.equal(versionResult.locations[0].physicalLocation.region.startLine, 6)
      assert.equal(versionResult.properties.pointer, '/version')
      assert.equal(run.results.find((item: {ruleId: string}) => item.ruleId === 'unknown-permission').level, 'warning')
    })

    it('github: one workflow command per diagnostic and nothing else', async () => {
      const result = await runCli([...args, '--format', 'github'], {cwd: repoRoot})
      assert.equal(result.status, 1)
      const lines = result.stdout.trimEnd().split('\n')
      assert.equal(lines.length, 11)
      assert.equal(lines.filter((line) => line.startsWith('::error file=fixtures/broken-plugin/manifest.json,line=')).length, 10)
      assert.equal(lines.filter((line) => line.startsWith('::warning file=fixtures/broken-plugin/manifest.json,line=30,')).length, 1)
      // The title is the code (package.json names no place that publishes the code pages: no link).
      assert.ok(lines.some((line) => /^::error file=fixtures\/broken-plugin\/manifest\.json,line=17,col=\d+,title=schema%3Apattern::/.test(line)))
    })
  })

  describe('--help', () => {
    it('describes the command, every flag and the examples', async () => {
      const result = await spawnCli(['validate', '--help'])
      assert.equal(result.status, 0)
      for (const flag of ['--manifest', '--directory', '--artifact', '--level', '--format', '--json', '--quiet', '--no-color']) {
        assert.ok(result.stdout.includes(flag), `--help does not mention ${flag}`)
      }
      for (const word of ['development', 'package', 'publication', 'text', 'json', 'sarif', 'github', 'junit', 'gitlab', 'GITHUB_ACTIONS', '--root', 'docs/codes/<code>.md', 'EXAMPLES', 'Exit status']) {
        assert.ok(result.stdout.includes(word), `--help does not mention ${word}`)
      }
    })
  })
})
