import {writeKeyPair} from '#cli'
import {ExitCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Keygen from '../keygen.js'

/** The arguments and flags of `svc-plugin keygen`, as oclif parsed them from the declarations of {@link Keygen}. */
export type KeygenInput = CommandInput<typeof Keygen>

/** `svc-plugin keygen`: writes a fresh Ed25519 key pair. */
export async function keygenCommand({flags: {output: folder, name, json}}: KeygenInput, {output}: ActionContext): Promise<ExitCode> {
  const written = await writeKeyPair(folder, name)
  if (json) output.outJson({privateKeyFile: written.privateKeyFile, publicKeyFile: written.publicKeyFile, publicKey: written.publicKeyText})
  else output.out(`Wrote ${written.privateKeyFile} (private, keep it secret) and ${written.publicKeyFile} (public).`)
  return ExitCode.success
}
