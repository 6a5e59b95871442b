import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, describe, it} from 'node:test'
import ts from 'typescript'
import {cliPath, fixturesDir, repoRoot} from '../helpers/cli.js'

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8')

/** The text of every fenced block of `language` in the README, in order. */
function blocks(language: string): string[] {
  return [...readme.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1] as string)
}

/**
 * Each command line of the README's shell examples that runs `svc-plugin` (maybe after a `cd`) or `openssl`
 * (the vault of the signing examples), continuation lines joined, and each `export` of a variable (which holds
 * for the examples after it).
 */
function commandLines(): string[] {
  return blocks('sh')
    .flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.trim())
    .filter((line) => /^(cd \S+ && )?svc-plugin |^openssl |^export [A-Z_]+=/.test(line))
}

const work = mkdtempSync(path.join(tmpdir(), 'svc-plugin-readme-'))
after(() => rmSync(work, {recursive: true, force: true}))

describe('README', () => {
  it('runs every svc-plugin example as written, in order, each with the exit status it states', () => {
    // The reader's starting point: plugin folders (one built, one in a monorepo's plugins/), the repository's
    // fixtures, an artifact of the example plugin (also in dist/), and `svc-plugin` on the PATH. Everything else, the examples make themselves.
    const home = path.join(work, 'project')
    cpSync(fixturesDir, path.join(home, 'fixtures'), {recursive: true})
    cpSync(path.join(fixturesDir, 'example-plugin'), path.join(home, 'build', 'plugin'), {recursive: true})
    cpSync(path.join(fixturesDir, 'example-plugin'), path.join(home, 'plugin'), {recursive: true})
    cpSync(path.join(fixturesDir, 'example-plugin'), path.join(home, 'plugins', 'weather-station'), {recursive: true})
    writeFileSync(path.join(work, 'svc-plugin'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`)
    chmodSync(path.join(work, 'svc-plugin'), 0o755)
    const env: NodeJS.ProcessEnv = {...process.env, HOME: home, PATH: `${work}${path.delimiter}${process.env['PATH'] ?? ''}`, NO_COLOR: '1'}
    for (const name of ['GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'SVC_PLUGIN_DATA_ROOT', 'SVC_PLUGIN_TRUST', 'SVC_PLUGIN_REVOCATIONS']) delete env[name]
    const prelude = spawnSync('svc-plugin', ['pack', 'plugin', '--output', 'weather-1.4.2.svcPlugin'], {cwd: home, env, encoding: 'utf8'})
    assert.equal(prelude.status, 0, prelude.stderr)
    cpSync(path.join(home, 'weather-1.4.2.svcPlugin'), path.join(home, 'dist', 'weather-1.4.2.svcPlugin'))

    const lines = commandLines()
    assert.ok(lines.length >= 15, `only ${lines.length} examples found`)
    const exports: string[] = []
    for (const line of lines) {
      if (line.startsWith('export ')) {
        exports.push(line)
        continue
      }
      const expected = Number(/#.*\bexits (\d+)/.exec(line)?.[1] ?? 0)
      const result = spawnSync('bash', ['-c', [...exports, line].join('\n')], {cwd: home, env, encoding: 'utf8'})
      assert.equal(result.status, expected, `README example\n  ${line}\nexited ${result.status}, not ${expected}:\n${result.stderr}${result.stdout.slice(0, 2000)}`)
    }
  })

  it('shows, for each command whose output it quotes ("$ svc-plugin …"), lines the command really prints', () => {
    const quoted = [...readme.matchAll(/^```[a-z]*\n\$ (svc-plugin [^\n]*)\n([\s\S]*?)^```$/gm)]
    assert.ok(quoted.length >= 2, `only ${quoted.length} quoted outputs found`)
    for (const [, command, shown] of quoted as Array<RegExpMatchArray & [string, string, string]>) {
      const result = spawnSync(process.execPath, [cliPath, ...command.split(' ').slice(1)], {cwd: repoRoot, env: {...process.env, NO_COLOR: '1'}, encoding: 'utf8'})
      const printed = new Set(`${result.stdout}${result.stderr}`.split('\n'))
      // "…" stands for lines left out of the quote; every other line is printed as it stands.
      const missing = shown.split('\n').filter((line) => line !== '' && line !== '…' && !printed.has(line))
      assert.deepEqual(missing, [], `README quotes lines that "${command}" does not print`)
    }
  })

  it('gives CI jobs that pass on clean plugins and fail on a plugin that ships a .env file, which SARIF, JUnit and GitLab place at that file', () => {
    // Each `run:` of the GitHub job and each line of the GitLab script that runs svc-plugin, `npx` being the
    // svc-plugin on the PATH.
    const ciLines = blocks('yaml')
      .flatMap((block) => block.split('\n'))
      .map((line) => /^\s*(?:run:|-)\s+(npx svc-plugin .*)$/.exec(line)?.[1])
      .filter((line): line is string => line !== undefined)
    assert.ok(ciLines.length >= 4, `only ${ciLines.length} CI commands found`)
    assert.ok(ciLines.every((line) => /--level (package|publication)\b/.test(line)), 'every CI command validates at package level or above')
    const repository = path.join(work, 'ci')
    cpSync(path.join(fixturesDir, 'example-plugin'), path.join(repository, 'plugins', 'weather-station'), {recursive: true})
    mkdirSync(path.join(repository, '.git'))
    writeFileSync(path.join(work, 'npx'), '#!/bin/sh\nexec "$@"\n')
    chmodSync(path.join(work, 'npx'), 0o755)
    const env: NodeJS.ProcessEnv = {...process.env, PATH: `${work}${path.delimiter}${process.env['PATH'] ?? ''}`, NO_COLOR: '1'}
    for (const name of ['GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY']) delete env[name]
    const runAll = () => ciLines.map((line) => ({line, status: spawnSync('bash', ['-c', line], {cwd: repository, env, encoding: 'utf8'}).status}))
    assert.deepEqual(runAll().filter(({status}) => status !== 0), [], 'a CI command fails on clean plugins')

    writeFileSync(path.join(repository, 'plugins', 'weather-station', '.env'), 'API_TOKEN=not-for-shipping\n')
    const failed = runAll()
    // The commands whose status is the job's fail; those that only write a report (`|| true`) do not.
    assert.deepEqual(
      failed.map(({line, status}) => [line.endsWith('|| true'), status]),
      ciLines.map((line) => [line.endsWith('|| true'), line.endsWith('|| true') ? 0 : 1]),
    )
    const sarif = JSON.parse(readFileSync(path.join(repository, 'svc-plugin.sarif'), 'utf8'))
    assert.deepEqual(
      sarif.runs[0].results.map((result: {ruleId: string; locations: Array<{physicalLocation: unknown}>}) => [result.ruleId, result.locations[0]!.physicalLocation]),
      [['secret-detected', {artifactLocation: {uri: 'plugins/weather-station/.env', uriBaseId: '%SRCROOT%'}}]],
    )
    assert.match(readFileSync(path.join(repository, 'svc-plugin-junit.xml'), 'utf8'), /<testcase classname="plugins\/weather-station" name="secret-detected in \.env" file="plugins\/weather-station\/\.env">/)
    const gitlab = JSON.parse(readFileSync(path.join(repository, 'gl-code-quality-report.json'), 'utf8'))
    assert.deepEqual(
      gitlab.map((issue: {check_name: string; location: unknown}) => [issue.check_name, issue.location]),
      [['secret-detected', {path: 'plugins/weather-station/.env', lines: {begin: 1}}]],
    )
  })

  it('shows library code that compiles against the public entries, every example of it', () => {
    const examples = blocks('ts')
    assert.ok(examples.length > 0, 'the README has no TypeScript example')
    // What the examples leave to the host: where its data lives and how it starts and reports.
    const files = examples.map((code, index) => {
      const file = path.join(work, `example-${index}.mts`)
      writeFileSync(file, `${code}\ndeclare const hostDataDir: string\ndeclare function startPlugin(entrypoint: unknown): void\ndeclare function showRefusal(code: string, message: string): void\ndeclare function refuseToLaunch(problems: unknown[]): void\nexport {}\n`)
      return file
    })
    const program = ts.createProgram(files, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
      // The package's public entries, as package.json's `exports` name them.
      paths: Object.fromEntries(['index', 'store', 'tooling'].map((entry) => [entry === 'index' ? 'svc-plugin' : `svc-plugin/${entry}`, [path.join(repoRoot, 'dist', 'types', `${entry}.d.ts`)]])),
    })
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
    assert.deepEqual(problems, [])
  })
})
