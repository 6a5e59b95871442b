import {countersignUpload} from '#cli'
import {ExitCode} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'
import {commandSignal} from '../../command-process.js'
import type {CommandInput} from '../../base.js'
import type StoreCountersign from '../../store/countersign.js'
import {uploadOptionsOf} from './verify.js'

/** The arguments and flags of `svc-plugin store countersign`, as oclif parsed them from the declarations of {@link StoreCountersign}. */
export type StoreCountersignInput = CommandInput<typeof StoreCountersign>

/** `svc-plugin store countersign`: the store's verification, then its countersignature beside the artifact. */
export async function storeCountersignCommand({args: {artifact}, flags}: StoreCountersignInput, {output}: ActionContext): Promise<ExitCode> {
  const signerCommand = flags['signer-command']
  const privateKeyFile = flags['private-key']
  const key = signerCommand !== undefined ? {key: {signerCommand}} : {privateKeyFile: privateKeyFile as string}
  const result = await countersignUpload(artifact, {
    ...uploadOptionsOf(flags),
    ...key,
    certificateFile: flags.certificate,
    certificateSignatureFile: flags['certificate-signature'],
    issuerCertificateFile: flags['issuer-certificate'],
    issuerSignatureFile: flags['issuer-signature'],
    output: flags.output,
    signal: commandSignal(),
  })
  if (flags.json) {
    const {output: path, report: _report, ...rest} = result
    output.outJson({path, artifact, ...rest})
  } else {
    output.out(`Countersigned ${artifact} -> ${result.output} with registry certificate ${result.certificateId} at ${result.countersignedAt}.`)
  }
  return ExitCode.success
}
