import {prepareArtifactSignature, signArtifact} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode} from '../exit-codes.js'
import {UsageError} from '../failure.js'
import {signingRoute} from '../signing-routes.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Sign from '../sign.js'

/** The arguments and flags of `svc-plugin sign`, as oclif parsed them from the declarations of {@link Sign}. */
export type SignInput = CommandInput<typeof Sign>

/** `svc-plugin sign`: signs a packed artifact into a new file, or writes the statement a key in a vault must sign. */
export async function signCommand({args: {artifact}, flags}: SignInput, {output}: ActionContext): Promise<ExitCode> {
  const {json, certificate: certificateFile, 'certificate-signature': certificateSignatureFile, 'issuer-certificate': issuerCertificateFile, 'issuer-signature': issuerSignatureFile} = flags
  const chain = {certificateFile, certificateSignatureFile, issuerCertificateFile, issuerSignatureFile}
  const route = signingRoute(flags, {'private-key': flags['private-key']})
  if ('prepare' in route) {
    const prepared = await prepareArtifactSignature({artifact, output: route.prepare, ...chain, signal: commandSignal()})
    if (json) {
      const {output: path, artifactDigest, ...rest} = prepared
      output.outJson({statement: path, ...rest, artifactDigest: `sha256:${artifactDigest}`})
    } else {
      output.out(`Prepared the statement to sign for ${artifact} with certificate ${prepared.certificateId} at ${prepared.signedAt}: ${prepared.output}.`)
    }
    return ExitCode.success
  }
  if (flags.output === undefined) throw new UsageError('Signing needs --output, the signed artifact to write (only --prepare writes nothing else).')
  const result = await signArtifact({artifact, output: flags.output, key: route.key, ...chain, signal: commandSignal()})
  if (json) {
    // The digest is written sha256:<hex> here as in pack and inspect.
    const {output: path, artifactDigest, ...rest} = result
    output.outJson({path, ...rest, artifactDigest: `sha256:${artifactDigest}`})
  } else {
    output.out(`Signed ${artifact} -> ${result.output} with certificate ${result.certificateId} at ${result.signedAt}.`)
  }
  return ExitCode.success
}
