import {countersignUploadFiles} from '../../../src/index.js'
import {ExitCode} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'
import {uploadOptionsOf, type UploadFlagValues} from './verify.js'

/** The arguments and flags of `svc-plugin store countersign`, as parsed (by oclif, or by the direct path). */
export interface StoreCountersignInput {
  readonly args: {readonly artifact: string}
  readonly flags: UploadFlagValues & {
    readonly 'private-key'?: string | undefined
    readonly 'signer-command'?: string | undefined
    readonly certificate: string
    readonly 'certificate-signature': string
    readonly 'issuer-certificate'?: string | undefined
    readonly 'issuer-signature'?: string | undefined
    readonly output?: string | undefined
    readonly json: boolean
  }
}

/** `svc-plugin store countersign`: the store's verification, then its countersignature beside the artifact. */
export async function storeCountersignCommand({args: {artifact}, flags}: StoreCountersignInput, {output}: ActionContext): Promise<ExitCode> {
  const result = await countersignUploadFiles(artifact, {
    ...uploadOptionsOf(flags),
    privateKeyFile: flags['private-key'],
    signerCommand: flags['signer-command'],
    certificateFile: flags.certificate,
    certificateSignatureFile: flags['certificate-signature'],
    issuerCertificateFile: flags['issuer-certificate'],
    issuerSignatureFile: flags['issuer-signature'],
    output: flags.output,
  })
  if (flags.json) {
    const {output: path, report: _report, ...rest} = result
    output.outJson({path, artifact, ...rest})
  } else {
    output.out(`Countersigned ${artifact} -> ${result.output} with registry certificate ${result.certificateId} at ${result.countersignedAt}.`)
  }
  return ExitCode.success
}
