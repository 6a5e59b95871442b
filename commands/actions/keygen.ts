import {writeKeyPair} from '../../src/index.js'
import {ExitCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'

/** The flags of `svc-plugin keygen`, as parsed (by oclif, or by the direct path). */
export interface KeygenInput {
  readonly flags: {readonly output: string; readonly name: string; readonly json: boolean}
}

/** `svc-plugin keygen`: writes a fresh Ed25519 key pair. */
export async function keygenCommand({flags: {output: folder, name, json}}: KeygenInput, {output}: ActionContext): Promise<ExitCode> {
  const written = await writeKeyPair(folder, name)
  if (json) output.outJson({privateKeyFile: written.privateKeyFile, publicKeyFile: written.publicKeyFile, publicKey: written.publicKeyText})
  else output.out(`Wrote ${written.privateKeyFile} (private, keep it secret) and ${written.publicKeyFile} (public).`)
  return ExitCode.success
}
