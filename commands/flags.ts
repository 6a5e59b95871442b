import {Args, Flags} from '@oclif/core'
import {environmentVariables} from './environment-variables.js'

/** `--protocol 1-3` (or `2`): the protocol majors a host serves. */
export const protocolFlag = Flags.custom<{minimum: number; maximum: number}>({
  description: 'Protocol majors the host serves, as MIN-MAX or one number.',
  helpValue: '<min-max>',
  async parse(input) {
    const range = parseProtocolRange(input)
    if (range === undefined) throw new Error(`--protocol expects MIN-MAX with 1 <= MIN <= MAX, not ${JSON.stringify(input)}.`)
    return range
  },
})

/**
 * A flag taking one of a fixed list of words, matched without regard to case (`--format JSON` is
 * `--format json`); the value the command sees is always the listed spelling.
 */
export function choiceFlag<const T extends string>(choices: readonly T[]) {
  const parse = async (input: string, _context: unknown, flag: {name: string}): Promise<T> => {
    const value = matchChoice(choices, input)
    if (value === undefined) throw new Error(`Expected --${flag.name} to be one of ${choices.join(', ')}, not ${JSON.stringify(input)}.`)
    return value
  }
  // The parser's declared type is generic over arrays too; this flag is never `multiple`.
  return Flags.custom<T>({helpValue: `<${choices.join('|')}>`, parse: parse as never})
}

/** A flag taking a whole number of at least `minimum` (`--retain 2`). */
export function countFlag(minimum: number) {
  const parse = async (input: string, _context: unknown, flag: {name: string}): Promise<number> => {
    const value = parseCount(input, minimum)
    if (value === undefined) throw new Error(`Expected --${flag.name} to be a whole number of at least ${minimum}, not ${JSON.stringify(input)}.`)
    return value
  }
  return Flags.custom<number>({helpValue: '<n>', parse: parse as never})
}

/** The shared part of `--data-root <dir>` (or SVC_PLUGIN_DATA_ROOT): spread into `Flags.string`. */
export const dataRootOptions = {helpValue: '<dir>', env: environmentVariables['data-root']} as const

/** The advice of a command that reads an existing data root, for a data root that does not exist. */
export const dataRootAdvice = {'data-root-not-found': `Check --data-root (or ${environmentVariables['data-root']}).`} as const

/** The shared part of `--trust <file>` (or SVC_PLUGIN_TRUST). */
export const trustOptions = {char: 't', helpValue: '<file>', env: environmentVariables.trust} as const

/** `--revocations <file>` (or SVC_PLUGIN_REVOCATIONS). */
export const revocationsFlag = Flags.string({
  description: 'A root-signed revocation list (revocations.json; revocations.sig beside it).',
  helpValue: '<file>',
  env: environmentVariables.revocations,
})

/**
 * The flags of the store's verification of an upload, which `store verify` and `store countersign` share:
 * the uploading account, the trust store, the published versions and the revocation list.
 */
export const uploadFlags = {
  'account-name': Flags.string({description: "The uploading account's publisher name (publisher.name must equal it).", required: true, helpValue: '<name>'}),
  'account-id': Flags.string({description: "The uploading account's publisher id (publisher.id, when present, must equal it).", helpValue: '<id>'}),
  trust: Flags.string({...trustOptions, description: 'The trust store the signatures must chain to.', required: true}),
  published: Flags.string({description: 'A version already published (repeat, or separate with commas); the upload must be greater.', multiple: true, delimiter: ',', helpValue: '<version>'}),
  revocations: revocationsFlag,
  'allow-stale-revocations': Flags.boolean({description: 'Apply a revocation list past its nextUpdate (a warning) instead of refusing the upload.', default: false}),
}

/**
 * A positional argument. It is never read from standard input: oclif would otherwise take a missing
 * argument from a pipe (`… | svc-plugin pack` packing the folder named by the text piped in, or a script's
 * loop losing its input to it).
 */
export const stringArgument: typeof Args.string = (options = {}) => Args.string({...options, ignoreStdin: true} as never) as never

/**
 * The word of `choices` that `input` names, compared without regard to case or surrounding spaces
 * (`--format JSON` is `--format json`).
 */
export function matchChoice<const T extends string>(choices: readonly T[], input: string): T | undefined {
  const wanted = input.trim().toLowerCase()
  return choices.find((choice) => choice.toLowerCase() === wanted)
}

/** A range of protocol majors, `MIN-MAX` or one number, with 1 <= MIN <= MAX. */
export function parseProtocolRange(input: string): {minimum: number; maximum: number} | undefined {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(input)
  const minimum = Number(match?.[1])
  const maximum = Number(match?.[2] ?? match?.[1])
  return match === null || !Number.isSafeInteger(maximum) || minimum < 1 || maximum < minimum ? undefined : {minimum, maximum}
}

/** A whole number written in decimal digits (with a leading `-` when `minimum` is negative), at least `minimum`. */
export function parseCount(input: string, minimum: number): number | undefined {
  if (!(minimum < 0 ? /^\s*-?\d+\s*$/ : /^\s*\d+\s*$/).test(input)) return undefined
  const value = Number(input)
  return Number.isSafeInteger(value) && value >= minimum ? value : undefined
}

/** The flags of the signing routes (commands/signing-routes.ts) every signing command declares beside its private key flag. */
export const signingRouteFlags = {
  'signer-command': Flags.string({
    description: 'Sign with a key held elsewhere: this command is run through the shell with the bytes to sign on its standard input, and prints the 64-byte Ed25519 signature (raw, or one line of base64).',
    helpValue: '<command>',
  }),
  prepare: Flags.string({description: 'Write the exact bytes the key must sign to this file, and nothing else (complete later with --prepared and --signature).', helpValue: '<file>'}),
  prepared: Flags.string({description: 'Complete from the statement --prepare wrote (with --signature).', helpValue: '<file>'}),
  signature: Flags.string({description: 'The 64-byte Ed25519 signature of the --prepared statement, raw or one line of base64.', helpValue: '<file>'}),
}
