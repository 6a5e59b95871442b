import type {Interfaces} from '@oclif/core'
import {type KeySource, SigningError} from '#cli'
import type {signingRouteFlags} from './flags.js'

/**
 * The ways a command that signs gets its signature, chosen from its flags in one place: a private key file
 * (the command's own flag: --private-key, --root-key, --issuer-key), --signer-command (a key in a vault,
 * reached through a command), --prepare (write the statement the key must sign, and nothing else), or
 * --prepared with --signature (complete from a statement signed elsewhere). docs/signing.md, "Signing with
 * a key in a vault". The flags themselves are declared in commands/flags.ts (`signingRouteFlags`); this module
 * loads no oclif, so the direct path runs it.
 */

/** The route flags as parsed, typed from their declarations in flags.ts: a renamed one does not compile here. */
export type SigningRouteFlags = Interfaces.InferredFlags<typeof signingRouteFlags>

/** What a command line asks of a signing command: sign with this key (the flag of a key file, when one was used), or only write the statement. */
export type SigningRoute = {key: KeySource; keyFlag: string | null} | {prepare: string}

/**
 * The one route the flags name: a private key file (each entry of `keyFiles` is a key flag and its value),
 * --signer-command, --prepare, or --prepared with --signature. None, several, or --signature without
 * --prepared (and the reverse) is `invalid-signer` (exit 2) naming the flags.
 */
export function signingRoute(flags: SigningRouteFlags, keyFiles: Readonly<Record<string, string | undefined>>): SigningRoute {
  const {'signer-command': signerCommand, prepare, prepared, signature} = flags
  if ((prepared === undefined) !== (signature === undefined)) throw new SigningError('invalid-signer', '--prepared and --signature go together: the statement --prepare wrote and its signature.')
  const routes: SigningRoute[] = []
  for (const [flag, file] of Object.entries(keyFiles)) if (file !== undefined) routes.push({key: {privateKeyFile: file}, keyFlag: flag})
  if (signerCommand !== undefined) routes.push({key: {signerCommand}, keyFlag: null})
  if (prepare !== undefined) routes.push({prepare})
  if (prepared !== undefined && signature !== undefined) routes.push({key: {preparedFile: prepared, signatureFile: signature}, keyFlag: null})
  const names = [...Object.keys(keyFiles).map((flag) => `--${flag}`), '--signer-command', '--prepare', '--prepared with --signature'].join(', ')
  if (routes.length !== 1) throw new SigningError('invalid-signer', `Give exactly one of ${names}${routes.length === 0 ? '' : ` (${routes.length} were given)`}.`)
  return routes[0] as SigningRoute
}
