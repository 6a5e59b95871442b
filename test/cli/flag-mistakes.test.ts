import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {BaseCommand} from '../../commands/base.js'
import {COMMANDS} from '../../commands/index.js'
import {usageProblem} from '../../commands/failure.js'
import {repoRoot, runCliJson, spawnCli} from '../helpers/cli.js'

/**
 * A flag typed wrong is answered as a command typed wrong is: with the flag it most likely meant, or, when
 * a required one is missing, its name as it is typed and the variable that can stand for it.
 */

interface DeclaredFlag {
  readonly char?: string
  readonly required?: boolean
  readonly env?: string
  readonly allowNo?: boolean
}

/** Every command's flags (its own and those every command takes), by name. */
const commands = Object.entries(COMMANDS).map(([id, command]) => ({
  id,
  words: id.split(':'),
  flags: {...BaseCommand.baseFlags, ...command.flags} as Record<string, DeclaredFlag>,
  args: Object.entries((command.args ?? {}) as Record<string, {required?: boolean}>),
}))

/** Every spelling of a flag a user can type for `flags`: `--name`, and `--no-name` for one that can be turned off. */
function spellings(flags: Record<string, DeclaredFlag>): string[] {
  return Object.entries(flags).flatMap(([name, flag]) => [`--${name}`, ...(flag.allowNo === true ? [`--no-${name}`] : [])])
}

/**
 * Every string one edit away from `word` (a letter left out, doubled, replaced by another letter of the
 * alphabet of the flags, or swapped with its neighbour): an oracle for "close" written apart from the code.
 */
function oneEditAway(word: string, alphabet: readonly string[]): Set<string> {
  const near = new Set<string>()
  for (let i = 0; i <= word.length; i++) {
    if (i < word.length) near.add(word.slice(0, i) + word.slice(i + 1))
    if (i + 1 < word.length) near.add(word.slice(0, i) + (word[i + 1] as string) + (word[i] as string) + word.slice(i + 2))
    for (const letter of alphabet) {
      near.add(word.slice(0, i) + letter + word.slice(i))
      if (i < word.length) near.add(word.slice(0, i) + letter + word.slice(i + 1))
    }
  }
  near.delete(word)
  return near
}

/** The typo of a flag: its two letters after the dashes swapped (`--levle` for `--level`), or one dropped. */
function typoOf(flag: string): string {
  const name = flag.slice(2)
  const swapped = `--${name.slice(0, -2)}${name.at(-1)}${name.at(-2)}`
  return swapped !== flag ? swapped : `--${name.slice(0, -1)}`
}

describe('a flag the command does not have', () => {
  for (const {id, words, flags} of commands) {
    it(`suggests the flag a typo meant, for every flag of ${words.join(' ')} that no other flag of it is as close to`, async () => {
      const all = spellings(flags)
      const alphabet = [...new Set(all.join('').split(''))]
      for (const flag of all) {
        const typo = typoOf(flag)
        if (all.includes(typo)) continue
        // The flags one edit from the typo; the suggestion is made only when there is exactly one.
        const close = all.filter((candidate) => oneEditAway(candidate, alphabet).has(typo))
        const result = await runCliJson([...words, typo])
        assert.equal(result.status, 2, `${id} ${typo}`)
        assert.equal(result.json.error.code, 'unknown-flag', `${id} ${typo}`)
        assert.equal(result.json.error.flag, typo)
        if (close.length === 1) {
          assert.equal(result.json.error.suggestion, flag, `${id} ${typo}`)
          assert.equal(result.json.error.message, `svc-plugin ${words.join(' ')} has no flag ${typo}. Did you mean ${flag}?`)
        } else {
          assert.equal(result.json.error.suggestion, undefined, `${id} ${typo}: ${close.join(', ')}`)
        }
        assert.equal(result.stderr, `error unknown-flag: ${result.json.error.message}\nSee: svc-plugin ${words.join(' ')} --help\n`)
      }
    })
  }

  it('names the flag without its value, and suggests nothing for a word far from every flag', async () => {
    const typed = await runCliJson(['validate', '--levle=package'])
    assert.deepEqual(typed.json.error, {code: 'unknown-flag', message: 'svc-plugin validate has no flag --levle. Did you mean --level?', flag: '--levle', suggestion: '--level'})
    const far = await runCliJson(['validate', '--frobnicate'])
    assert.deepEqual(far.json.error, {code: 'unknown-flag', message: 'svc-plugin validate has no flag --frobnicate.', flag: '--frobnicate'})
  })
})

describe('a required flag that is missing', () => {
  for (const {words, flags, args} of commands) {
    const required = Object.entries(flags).filter(([, flag]) => flag.required === true)
    if (required.length === 0) continue
    it(`names each of ${words.join(' ')} with its dashes and the variable that can stand for it`, async () => {
      // The required arguments are given, so that the flags are what is missing.
      const given = args.filter(([, arg]) => arg.required === true).map(([name]) => `some-${name}`)
      const env = Object.fromEntries(required.flatMap(([, flag]) => (flag.env === undefined ? [] : [[flag.env, '']])))
      const result = await runCliJson([...words, ...given], {env})
      assert.equal(result.status, 2)
      assert.equal(result.json.error.code, 'usage')
      const expected = required.map(([name, flag]) => `Missing required flag --${name}${flag.env === undefined ? '' : ` (or set ${flag.env})`}.`)
      // Flags of which exactly one is needed (a key file or a signing command) are named by oclif's own sentence.
      const missing = result.json.error.message.split('; ').filter((part: string) => part.startsWith('Missing required flag'))
      assert.deepEqual(missing.sort(), expected.sort())
    })
  }
})

describe('short flags', () => {
  it('mean one thing in every command: -f is --force, and --format has none', () => {
    const meanings = new Map<string, Set<string>>()
    for (const {flags} of commands) {
      for (const [name, flag] of Object.entries(flags)) if (flag.char !== undefined) meanings.set(flag.char, new Set([...(meanings.get(flag.char) ?? []), name]))
    }
    for (const [char, names] of meanings) assert.equal(names.size, 1, `-${char} is ${[...names].join(' and ')}`)
    assert.deepEqual([...(meanings.get('f') ?? [])], ['force'])
    for (const {id, flags} of commands) assert.equal(flags.format?.char, undefined, `${id} --format`)
  })
})

describe('-v', () => {
  const {name, version} = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {name: string; version: string}
  const userAgent = `${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`

  it('prints the version, as --version does, alone and with more after it', async () => {
    for (const args of [['-v'], ['--version'], ['-v', 'extra'], ['--version', 'extra']]) {
      const result = await spawnCli(args)
      assert.deepEqual({status: result.status, stdout: result.stdout, stderr: result.stderr}, {status: 0, stdout: userAgent, stderr: ''}, args.join(' '))
    }
  })
})

describe("the parser's other refusals, said in one sentence", () => {
  /** The usage problem of the parser's message `text` (the lines it prints, its hint at --help after them). */
  const problem = (text: string) => usageProblem(new Error(`${text}\nSee more help with --help`), 'install', {})
  const cases: readonly [string, string, string][] = [
    ['a missing argument, named as --help shows it, with what it is for', 'Missing 1 required arg:\nartifact  The .svcPlugin file to install.', 'Missing required argument ARTIFACT (the .svcPlugin file to install).'],
    ['missing arguments, in one sentence', 'Missing 2 required args:\nbase  The artifact to start from.\nother  Another one', 'Missing required arguments BASE (the artifact to start from), OTHER (another one).'],
    ['a missing argument without a description', 'Missing 1 required arg:\nartifact', 'Missing required argument ARTIFACT.'],
    ["a flag's value refused, the reason naming the flag: the parser's `Parsing --flag` line left out", 'Parsing --retain\n\tExpected --retain to be a whole number of at least 0, not "abc".', 'Expected --retain to be a whole number of at least 0, not "abc".'],
    ["a flag's value refused, the reason not naming it: the flag joined to the reason", 'Parsing --retain\n\tExpected an integer but received: abc', '--retain: Expected an integer but received: abc'],
    ['a reason naming only a longer flag (--level-x is not --level)', 'Parsing --level\n\tExpected --level-x to be set', '--level: Expected --level-x to be set'],
  ]
  for (const [what, text, message] of cases) {
    it(what, () => assert.deepEqual(problem(text), {code: 'usage', message}))
  }
})
