import {Args, Flags} from '@oclif/core'
import {environmentVariables} from './environment-variables.js'
import {matchChoice, parseCount, parseProtocolRange, type FlagValue} from './flag-values.js'

/**
 * `--protocol 1-3` (or `2`): the protocol majors a host serves. Like every flag here whose value is read by
 * a function of commands/flag-values.ts, it carries `valueKind`, which the build copies into the manifest so
 * that the direct path reads the value the same way.
 */
export const protocolFlag = Flags.custom<{minimum: number; maximum: number}>({
  description: 'Protocol majors the host serves, as MIN-MAX or one number.',
  helpValue: '<min-max>',
  async parse(input) {
    const range = parseProtocolRange(input)
    if (range === undefined) throw new Error(`--protocol expects MIN-MAX with 1 <= MIN <= MAX, not ${JSON.stringify(input)}.`)
    return range
  },
  ...valueKind({value: 'protocol-range'}),
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
  return Flags.custom<T>({helpValue: `<${choices.join('|')}>`, parse: parse as never, ...valueKind({choices})})
}

/** A flag taking a whole number of at least `minimum` (`--retain 2`). */
export function countFlag(minimum: number) {
  const parse = async (input: string, _context: unknown, flag: {name: string}): Promise<number> => {
    const value = parseCount(input, minimum)
    if (value === undefined) throw new Error(`Expected --${flag.name} to be a whole number of at least ${minimum}, not ${JSON.stringify(input)}.`)
    return value
  }
  return Flags.custom<number>({helpValue: '<n>', parse: parse as never, ...valueKind({value: 'count', minimum})})
}

/** The `valueKind` a flag definition carries (not a property oclif knows, hence the cast). */
function valueKind(kind: FlagValue): object {
  return {valueKind: kind}
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
 * A positional argument. It is never read from standard input: oclif would otherwise take a missing
 * argument from a pipe (`… | svc-plugin pack` packing the folder named by the text piped in, or a script's
 * loop losing its input to it).
 */
export const stringArgument: typeof Args.string = (options = {}) => Args.string({...options, ignoreStdin: true} as never) as never

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
