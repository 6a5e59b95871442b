import {writeRoot, writeRootOfPublicKey} from '../../../src/index.js'
import {ExitCode} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'

/** The flags of `svc-plugin cert root`, as parsed (by oclif, or by the direct path). */
export interface CertRootInput {
  readonly flags: {readonly output: string; readonly 'root-key-id'?: string | undefined; readonly 'root-public-key'?: string | undefined; readonly json: boolean}
}

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
