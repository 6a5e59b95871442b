import {signArtifact} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Sign from '../sign.js'

/** The arguments and flags of `svc-plugin sign`, as oclif parsed them from the declarations of {@link Sign}. */
export type SignInput = CommandInput<typeof Sign>

/** `svc-plugin sign`: signs a packed artifact into a new file. */
export async function signCommand({args: {artifact}, flags}: SignInput, {output}: ActionContext): Promise<ExitCode> {
  const {
    output: file,
    json,
    'private-key': privateKeyFile,
    certificate: certificateFile,
    'certificate-signature': certificateSignatureFile,
    'issuer-certificate': issuerCertificateFile,
    'issuer-signature': issuerSignatureFile,
  } = flags
  const result = await signArtifact({artifact, output: file, privateKeyFile, certificateFile, certificateSignatureFile, issuerCertificateFile, issuerSignatureFile, signal: commandSignal()})
  if (json) {
    // The digest is written sha256:<hex> here as in pack and inspect.
    const {output: path, artifactDigest, ...rest} = result
    output.outJson({path, ...rest, artifactDigest: `sha256:${artifactDigest}`})
  } else {
    output.out(`Signed ${artifact} -> ${result.output} with certificate ${result.certificateId} at ${result.signedAt}.`)
  }
  return ExitCode.success
}
