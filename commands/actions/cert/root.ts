import {writeRoot, writeRootOfPublicKey} from '#cli'
import {ExitCode} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'
import type {CommandInput} from '../../base.js'
import type CertRoot from '../../cert/root.js'

/** The arguments and flags of `svc-plugin cert root`, as oclif parsed them from the declarations of {@link CertRoot}. */
export type CertRootInput = CommandInput<typeof CertRoot>

/** `svc-plugin cert root`: a root key and the trust store that trusts it. */
export async function certRootCommand({flags}: CertRootInput, {output}: ActionContext): Promise<ExitCode> {
  const rootKeyId = flags['root-key-id']
  const publicKeyFile = flags['root-public-key']
  if (publicKeyFile !== undefined) {
    const root = await writeRootOfPublicKey(flags.output, rootKeyId === undefined ? {publicKeyFile} : {publicKeyFile, rootKeyId})
    if (flags.json) output.outJson({rootKeyId: root.rootKeyId, privateKeyFile: null, publicKeyFile: root.publicKeyFile, trustStoreFile: root.trustStoreFile, publicKey: root.publicKeyText})
    else output.out(`Created root ${root.rootKeyId} for a key held elsewhere: ${root.publicKeyFile}, ${root.trustStoreFile}.`)
    return ExitCode.success
  }
  const root = await writeRoot(flags.output, rootKeyId === undefined ? {} : {rootKeyId})
  if (flags.json) {
    output.outJson({rootKeyId: root.rootKeyId, privateKeyFile: root.privateKeyFile, publicKeyFile: root.publicKeyFile, trustStoreFile: root.trustStoreFile, publicKey: root.publicKeyText})
  } else {
    output.out(`Created root ${root.rootKeyId}: ${root.privateKeyFile} (private, keep it offline), ${root.publicKeyFile}, ${root.trustStoreFile}.`)
  }
  return ExitCode.success
}
