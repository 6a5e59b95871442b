import {Flags} from '@oclif/core'
import {matchChoice} from './choices.js'

/** `--protocol 1-3` (or `2`): the protocol majors a host serves. */
export const protocolFlag = Flags.custom<{minimum: number; maximum: number}>({
  description: 'Protocol majors the host serves, as MIN-MAX or one number.',
  helpValue: '<min-max>',
  async parse(input) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(input)
    const minimum = Number(match?.[1])
    const maximum = Number(match?.[2] ?? match?.[1])
    if (match === null || minimum < 1 || maximum < minimum) throw new Error(`--protocol expects MIN-MAX with 1 <= MIN <= MAX, not ${JSON.stringify(input)}.`)
    return {minimum, maximum}
  },
})

/**
 * A flag taking one of a fixed list of words, matched without regard to case (`--format JSON` is
 * `--format json`); the value the command sees is always the listed spelling. The flag carries its words
 * (`choices`), which the build copies into the manifest for the direct path.
 */
export function choiceFlag<const T extends string>(choices: readonly T[]) {
  const parse = async (input: string, _context: unknown, flag: {name: string}): Promise<T> => {
    const value = matchChoice(choices, input)
    if (value === undefined) throw new Error(`Expected --${flag.name} to be one of ${choices.join(', ')}, not ${JSON.stringify(input)}.`)
    return value
  }
  // The parser's declared type is generic over arrays too; this flag is never `multiple`.
  const definition = {helpValue: `<${choices.join('|')}>`, parse: parse as never, choices}
  return Flags.custom<T>(definition)
}

/**
 * The environment variables a host's scripts can set instead of repeating a flag on every command. A flag
 * given on the command line always wins over its variable.
 */
export const environmentVariables = {
  'data-root': 'SVC_PLUGIN_DATA_ROOT',
  trust: 'SVC_PLUGIN_TRUST',
  revocations: 'SVC_PLUGIN_REVOCATIONS',
} as const

/** The shared part of `--data-root <dir>` (or SVC_PLUGIN_DATA_ROOT): spread into `Flags.string`. */
export const dataRootOptions = {helpValue: '<dir>', env: environmentVariables['data-root']} as const

/** The shared part of `--trust <file>` (or SVC_PLUGIN_TRUST). */
export const trustOptions = {char: 't', helpValue: '<file>', env: environmentVariables.trust} as const

/** `--revocations <file>` (or SVC_PLUGIN_REVOCATIONS). */
export const revocationsFlag = Flags.string({
  description: 'A root-signed revocation list (revocations.json; revocations.sig beside it).',
  helpValue: '<file>',
  env: environmentVariables.revocations,
})
