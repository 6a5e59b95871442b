import {Args, Flags} from '@oclif/core'
import {SvcPluginError} from '../src/errors.js'
import type {VerificationResult} from '../src/signing/result.js'
import {verifyArtifactFile} from '../src/signing/verify-artifact.js'
import {BaseCommand} from './base.js'
import {ExitCode, exitCodeFor} from './exit-codes.js'

export default class Verify extends BaseCommand<typeof Verify> {
  static override summary = 'Verify the signature of a .svcPlugin artifact against a trust store.'
  static override description = `Runs the checks of DESIGN §7.4 in order and stops at the first failure: the archive, the manifest and its signature trailer, the certificate chain up to a root of the trust store, the certificate's validity at the signing time, every file against files[], the publisher, and the Ed25519 signature over the canonical digest of every byte.

Output (stdout): "valid, signed by certificate <id>" or "invalid: <code>: <message>". --json prints {valid, verdict, certificateId, issuerCertificateId, signedAt, problems: [{code, message}]}; verdict is one of Trusted, Unsigned, Malformed, SignatureInvalid, ContentMismatch, UntrustedRoot, WrongCertificatePurpose, CertificateNotValidAtSignature.

Exit status: 0 valid, 1 invalid (unsigned included), 2 usage error or an unsupported archive format, 3 the artifact or the trust store cannot be read (missing, not a ZIP).`

  static override examples = ['<%= config.bin %> verify weather-1.4.2.svcPlugin --trust trust.json', '<%= config.bin %> verify weather-1.4.2.svcPlugin --trust trust.json --json']

  static override args = {
    artifact: Args.string({description: 'The .svcPlugin to verify.', required: true}),
  }

  static override flags = {
    trust: Flags.string({char: 't', description: 'The trust store (trust.json from cert root).', required: true, helpValue: '<file>'}),
  }

  async run(): Promise<void> {
    const {artifact} = this.args
    const {trust, json} = this.flags
    const result = await verifyArtifactFile(artifact, {trustFile: trust})
    if (json) {
      const {valid, verdict, certificateId, issuerCertificateId, signedAt, problems} = result
      this.outJson({valid, verdict, certificateId, issuerCertificateId, signedAt, problems})
    } else if (result.valid) {
      this.out(`valid, signed by certificate ${result.certificateId}`)
    } else {
      for (const problem of result.problems) this.out(`invalid: ${problem.code}: ${problem.message}`)
    }
    this.setExit(exitStatus(result))
  }
}

/**
 * The shared exit table decides: for an archive the reader refused, by the reader's code (a file that
 * is missing or not a ZIP is unreadable, 3; a hostile one is invalid, 1); otherwise by the problem's
 * code (an unsupported format is 2; every other refusal is 1).
 */
function exitStatus(result: VerificationResult): ExitCode {
  const [first] = result.problems
  if (result.valid || first === undefined) return ExitCode.success
  const code = first.code === 'package-unreadable' && first.archiveCode !== undefined ? first.archiveCode : first.code
  return exitCodeFor(new SvcPluginError(code, first.message))
}
