import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {mkdir, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {pathToFileURL} from 'node:url'
import {Parser} from '@oclif/core'
import fc from 'fast-check'
import {parsePlainCommandLine, runDirectly, type ManifestCommand} from '../../commands/direct.js'
import {COMMANDS} from '../../commands/index.js'
import {io} from '../../commands/io.js'
import {cliPath, repoRoot, runCli, runDirect, tempDir, type CliResult} from '../helpers/cli.js'

/**
 * Command lines where the direct path (commands/direct.ts) could part from oclif: what the process sees
 * around the command line (stdin, a closed stdout, a removed working directory), the manifest it reads
 * (damaged, or left from another version), and positionals oclif reorders. Each runs both ways.
 */

let dir: string
let cleanup: () => Promise<void>
/** A script that runs the bundled command line through oclif, never the direct path. */
let throughOclif: string
const fixture = (...parts: string[]): string => path.join(repoRoot, 'fixtures', ...parts)

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-direct-redteam-'))
  throughOclif = path.join(dir, 'through-oclif.mjs')
  const main = pathToFileURL(path.join(repoRoot, 'dist', 'cli', 'main.js')).href
  await writeFile(throughOclif, `const {main} = await import(${JSON.stringify(main)})\nawait main(${JSON.stringify(pathToFileURL(cliPath).href)})\n`)
})
after(async () => cleanup())

interface SpawnOptions {
  cwd: string
  /** What stdin holds (it is closed after). */
  input?: string
  /** Close the reading end of stdout at once, as `| head -c 0` does. */
  closeStdout?: boolean
  /** Run in a folder removed before node starts. */
  removedCwd?: boolean
}

/** Runs `node <script> <args>` and collects what it prints and its exit status. */
function spawnScript(script: string, args: readonly string[], options: SpawnOptions): Promise<CliResult> {
  const command = options.removedCwd === true ? ['/bin/sh', '-c', 'mkdir gone && cd gone && rmdir ../gone && exec "$0" "$@"', process.execPath] : [process.execPath]
  return new Promise((resolve, reject) => {
    const child = spawn(command[0] as string, [...command.slice(1), script, ...args], {cwd: options.cwd, env: {...process.env, NO_COLOR: '1'}, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    if (options.closeStdout === true) child.stdout.destroy()
    else child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (status, signal) => resolve({status, signal, stdout, stderr}))
    child.stdin.end(options.input ?? '')
  })
}

/** The binary (which takes the direct path for a plain command line) and oclif alone, as real processes. */
async function bothProcesses(args: readonly string[], options: SpawnOptions, prepare?: () => Promise<unknown>): Promise<{direct: CliResult; oclif: CliResult}> {
  await prepare?.()
  const direct = await spawnScript(cliPath, args, options)
  await prepare?.()
  return {direct, oclif: await spawnScript(throughOclif, args, options)}
}

/** Runs `body` with the command io channels taken; gives what it returned and what was written. */
async function captured<T>(body: () => Promise<T>): Promise<{value: T; stdout: string; stderr: string}> {
  const channels = {...io}
  const exitCode = process.exitCode
  let stdout = ''
  let stderr = ''
  io.stdout = {write: (text: string) => (stdout += text), isTTY: false}
  io.stderr = {write: (text: string) => (stderr += text), isTTY: false}
  try {
    return {value: await body(), stdout, stderr}
  } finally {
    Object.assign(io, channels)
    process.exitCode = exitCode
  }
}

describe('the direct path and oclif: positionals in oclif\'s order', () => {
  // oclif orders the positionals of a command that takes any number of them by each one's first
  // appearance on the command line, flag values included; the direct path gave them as typed.
  for (const {name, args, status} of [
    {name: 'validate with a path given twice', args: ['validate', 'example-plugin', 'broken-plugin', 'example-plugin'], status: 1},
    {name: 'validate with a path that is also the value of --root', args: ['validate', '--root', '.', 'broken-plugin', 'example-plugin', '.'], status: 3},
    {name: 'validate --format json with a path given twice', args: ['validate', 'broken-plugin', 'example-plugin', 'broken-plugin', '--format', 'json'], status: 1},
  ]) {
    it(`gives what oclif gives: ${name} (exit ${status})`, async () => {
      const options = {cwd: fixture(), env: {}}
      const direct = await runDirect(args, options)
      assert.ok(direct !== undefined, 'the direct path handed the command line to oclif')
      assert.deepEqual(direct, await runCli(args, options))
      assert.equal(direct.status, status)
    })
  }
})

describe('the direct path and oclif: the process around the command line', () => {
  for (const {args, status} of [
    {args: ['schema'], status: 0},
    {args: ['validate', fixture('broken-plugin'), '--format', 'sarif'], status: 1},
  ]) {
    it(`keeps the exit status and prints no stack when stdout is closed early: ${args.join(' ')}`, async () => {
      const {direct, oclif} = await bothProcesses(args, {cwd: dir, closeStdout: true})
      assert.deepEqual(direct, oclif)
      assert.deepEqual({status: direct.status, stderr: direct.stderr}, {status, stderr: ''})
    })
  }

  it('prints what oclif prints in a working directory that was removed', async () => {
    const {direct, oclif} = await bothProcesses(['validate', fixture('example-plugin')], {cwd: dir, removedCwd: true})
    assert.deepEqual(direct, oclif)
    assert.match(direct.stderr, /^WARNING: current directory does not exist\n/)
  })

  // oclif would read an argument that is not given from stdin when stdin is a pipe that has something in
  // it (within 10 ms), so that `… | svc-plugin pack` packed the folder named by the text piped in: every
  // argument is declared never to be read from stdin (commands/flags.ts `stringArgument`).
  for (const args of [['pack', '--dry-run'], ['validate'], ['init', '--id', 'com.example.piped'], ['verify', '--trust', 'trust.json']]) {
    it(`takes no argument from piped stdin, as neither path should: ${args.join(' ')}`, async () => {
      // A folder of its own, emptied before each run (init writes into it).
      const cwd = path.join(dir, `stdin-${args[0]}`)
      const empty = async () => {
        await rm(cwd, {recursive: true, force: true})
        await mkdir(cwd)
      }
      const {direct, oclif} = await bothProcesses(args, {cwd, input: `${fixture('example-plugin')}\n`}, empty)
      assert.deepEqual(direct, oclif)
    })
  }
})

describe('the direct path and the manifest it reads', () => {
  /** A package root holding package.json at `version` and the manifest text `manifest`. */
  const root = async (name: string, manifest: string, version?: string): Promise<URL> => {
    const folder = path.join(dir, name)
    await mkdir(folder, {recursive: true})
    const pjson = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {version: string}
    await writeFile(path.join(folder, 'package.json'), JSON.stringify({...pjson, version: version ?? pjson.version}))
    await writeFile(path.join(folder, 'oclif.manifest.json'), manifest)
    return pathToFileURL(`${folder}${path.sep}`)
  }
  const built = async () => readFile(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')
  const version = async () => (JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {version: string}).version

  it('hands a command line to oclif, writing nothing, when the manifest is damaged', async () => {
    const v = JSON.stringify(await version())
    const damaged = [
      'not json',
      'null',
      `{"version": ${v}}`,
      `{"version": ${v}, "commands": null}`,
      `{"version": ${v}, "commands": {"verify": null}}`,
      `{"version": ${v}, "commands": {"verify": {"args": {}}}}`,
      `{"version": ${v}, "commands": {"verify": {"flags": {"trust": null}, "args": {}}}}`,
      `{"version": ${v}, "commands": {"verify": {"flags": {"trust": {"type": "option"}}, "args": {"artifact": null}}}}`,
      `{"version": ${v}, "commands": {"verify": {"flags": {"trust": {"type": "option", "valueKind": {}}}, "args": {"artifact": {}}}}}`,
    ]
    const missing = await root('missing', '')
    await rm(new URL('oclif.manifest.json', missing))
    assert.deepEqual(await captured(async () => runDirectly(['verify', 'signed.svcPlugin', '--trust', 'trust.json'], missing)), {value: false, stdout: '', stderr: ''}, 'no manifest')
    for (const [index, manifest] of damaged.entries()) {
      const ran = await captured(async () => runDirectly(['verify', 'signed.svcPlugin', '--trust', 'trust.json'], await root(`damaged-${index}`, manifest)))
      assert.deepEqual(ran, {value: false, stdout: '', stderr: ''}, manifest)
    }
  })

  it('hands a command line to oclif when the manifest is of another version than package.json (oclif does not read it either)', async () => {
    const stale = await captured(async () => runDirectly(['schema'], await root('stale', await built(), '99.0.0')))
    assert.deepEqual(stale, {value: false, stdout: '', stderr: ''})
    const current = await captured(async () => runDirectly(['schema'], await root('current', await built())))
    assert.equal(current.value, true)
    assert.equal(current.stdout, (await runCli(['schema'])).stdout)
  })

  it('hands a command to oclif when oclif does more than run it: a deprecated command (a warning), one with a JSON result of oclif\'s', async () => {
    const manifest = JSON.parse(await built()) as {commands: Record<string, Record<string, unknown>>}
    for (const [name, change] of Object.entries({deprecated: {state: 'deprecated'}, 'json-flag': {enableJsonFlag: true}})) {
      const changed = {...manifest, commands: {...manifest.commands, schema: {...manifest.commands.schema, ...change}}}
      const ran = await captured(async () => runDirectly(['schema'], await root(name, JSON.stringify(changed))))
      assert.deepEqual(ran, {value: false, stdout: '', stderr: ''}, name)
    }
  })

  it('runs from another working directory, through a link to the binary', async () => {
    const link = path.join(dir, 'svc-plugin.js')
    await symlink(cliPath, link)
    const direct = await spawnScript(link, ['validate', fixture('example-plugin'), '--json'], {cwd: dir})
    const oclif = await spawnScript(throughOclif, ['validate', fixture('example-plugin'), '--json'], {cwd: dir})
    assert.deepEqual(direct, oclif)
    assert.equal(direct.status, 0, direct.stderr)
  })
})

describe('parsePlainCommandLine and oclif\'s parser', () => {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
  const values = [' ', 'x', '.', 'é', 'a b', '0', '2', ' 1 - 3 ', 'JSON', 'Package', 'plugin', '00', '1.4.2', 'win-x64', '--', '-', '-1', 'x=y']
  const odd = [['--'], ['-'], ['--json'], ['-q'], ['--no-color'], ['--no-json'], ['-h'], ['extra'], ['other'], ['--x'], [''], ['--quiet'], ['-1'], ['--json=true'], ['-qf'], ['x=y']]
  const environments: Record<string, string>[] = [{}, {SVC_PLUGIN_DATA_ROOT: 'data'}, {SVC_PLUGIN_TRUST: 'trust.json'}, {SVC_PLUGIN_DATA_ROOT: ''}, {SVC_PLUGIN_REVOCATIONS: ' '}]

  /** What oclif's parser gives for `argv` (no argument is read from stdin), or `undefined` when it refuses it. */
  async function oclifParse(command: (typeof COMMANDS)[keyof typeof COMMANDS], argv: string[]): Promise<unknown> {
    const definitions = command as unknown as {baseFlags?: object; flags?: object; args?: Record<string, object>; strict?: boolean}
    const args = Object.fromEntries(Object.entries(definitions.args ?? {}).map(([name, arg]) => [name, {...arg, ignoreStdin: true}]))
    try {
      const {args: parsedArgs, flags, argv: positionals} = await Parser.parse(argv, {flags: {...definitions.baseFlags, ...definitions.flags} as never, args: args as never, strict: definitions.strict ?? true, context: undefined})
      return {args: parsedArgs, flags, argv: positionals}
    } catch {
      return undefined
    }
  }

  it('gives a boolean flag that is not given its default, as oclif does', async () => {
    const install = ['signed.svcPlugin', '--data-root', 'data']
    assert.deepEqual(parsePlainCommandLine(install, manifest.commands.install as ManifestCommand), await oclifParse(COMMANDS.install, install))
    assert.deepEqual(parsePlainCommandLine([], manifest.commands.schema as ManifestCommand), await oclifParse(COMMANDS.schema, []))
  })

  it('gives in argv the default of an argument not given, as oclif does', async () => {
    assert.deepEqual(parsePlainCommandLine([], manifest.commands.pack as ManifestCommand)?.argv, ['.'])
    assert.deepEqual(((await oclifParse(COMMANDS.pack, [])) as {argv: string[]}).argv, ['.'])
  })

  for (const id of Object.keys(COMMANDS).filter((name) => name !== 'help')) {
    it(`reads every random command line of ${id} it takes as oclif's parser does (seeded sample)`, async () => {
      const command = manifest.commands[id] as ManifestCommand
      const tokens: string[][] = [...odd]
      for (const [name, flag] of Object.entries(command.flags)) {
        if (flag.type === 'boolean') tokens.push([`--${name}`], ...(flag.char === undefined ? [] : [[`-${flag.char}`]]), ...(flag.allowNo === true ? [[`--no-${name}`]] : []))
        else for (const value of values) tokens.push([`--${name}`, value], [`--${name}=${value}`], ...(flag.char === undefined ? [] : [[`-${flag.char}`, value]]))
      }
      // What the command requires comes first (a required flag given again among the random tokens is handed over).
      const required = [
        ...Object.values(command.args).filter((arg) => arg.required === true).map(() => 'given'),
        ...Object.entries(command.flags).filter(([, flag]) => flag.required === true).flatMap(([name, flag]) => [`--${name}`, flag.valueKind !== undefined && 'choices' in flag.valueKind ? (flag.valueKind.choices[0] as string) : 'given']),
      ]
      let taken = 0
      await fc.assert(
        fc.asyncProperty(fc.array(fc.oneof(fc.constantFrom(...tokens), fc.constantFrom(['a'], ['b'], ['x'], ['.'])), {maxLength: 8}), fc.constantFrom(...environments), async (chosen, environment) => {
          const argv = [...required, ...chosen.flat()]
          const saved = {...process.env}
          Object.assign(process.env, environment)
          try {
            const direct = parsePlainCommandLine(argv, command)
            if (direct === undefined) return
            taken += 1
            assert.deepEqual(direct, await oclifParse(COMMANDS[id as keyof typeof COMMANDS], argv), JSON.stringify({argv, environment}))
          } finally {
            for (const key of Object.keys(environment)) if (saved[key] === undefined) delete process.env[key]
            Object.assign(process.env, saved)
          }
        }),
        {seed: 20261127, numRuns: 300},
      )
      assert.ok(taken > 0, `no command line of ${id} was taken`)
    })
  }
})
