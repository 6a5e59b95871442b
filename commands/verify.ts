import {Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {verifyCommand} from './actions/verify.js'
import {dataRootAdvice, dataRootOptions, revocationsFlag, stringArgument, trustOptions} from './flags.js'

export default class Verify extends BaseCommand<typeof Verify> {
  static override summary = 'Verify the signature of a .svcPlugin artifact against a trust store.'
  static override description = `Runs the verification checks in order and stops at the first failure: the archive, the manifest and its signature trailer, the certificate chain up to a root of the trust store, the certificate's validity at the signing time, every file against files[], the publisher, and the Ed25519 signature over the canonical digest of every byte.

With --revocations, the root-signed revocation list (revocations.json, its revocations.sig beside it) is checked against the trust store first, then applied once the signature is proven: a revoked artifact, key or certificate gives the verdict Revoked (code revoked). A list that does not verify is refused (revocation-list-invalid), and so is one past its nextUpdate (revocation-list-stale) unless --allow-stale-revocations.

A signature made by this version of sign also covers the container: every byte of the archive file, headers and compressed bytes included (containerDigest in the signed manifest). An artifact signed without it verifies with the warning container-unsigned; --require-container-signature refuses it instead.

With --installed <id> --data-root <dir> (and optionally --version, default the active one), re-checks an installed version instead: every file against its files[] (each file changed, added or removed is reported with its code) and its signature, which must still be Trusted, or Unsigned for a version installed unsigned. Exit 0 valid, 1 invalid or not installed.

Output (stdout): "valid, signed by certificate <id>" or "invalid: <code>: <message>". --json prints {path, valid, verdict, certificateId, issuerCertificateId, signedAt, problems: [{code, severity, message}], warnings} (warnings: container-unsigned, revocation-list-stale) and, with --revocations, revocations: {rootKeyId, sequence, issuedAt, nextUpdate, stale}; verdict is one of Trusted, Unsigned, Malformed, SignatureInvalid, ContentMismatch, UntrustedRoot, WrongCertificatePurpose, CertificateNotValidAtSignature, Revoked.

Exit status: 0 valid, 1 invalid (unsigned and revoked included) or an unusable revocation list, 2 usage error or an unsupported archive format, 3 the artifact, the trust store or the revocation list cannot be read (missing, not a ZIP), or with --installed the data root does not exist (data-root-not-found).`

  static override examples = [
    '<%= config.bin %> verify weather-1.4.2.svcPlugin --trust trust.json',
    '<%= config.bin %> verify weather-1.4.2.svcPlugin --trust trust.json --json',
    '<%= config.bin %> verify weather-1.4.2.svcPlugin --trust trust.json --revocations revocations.json',
  ]

  static override advice = {...dataRootAdvice, 'revocation-list-stale': 'Or pass --allow-stale-revocations to apply it anyway.'}

  static override args = {
    artifact: stringArgument({description: 'The .svcPlugin to verify (omit with --installed).', required: false}),
  }

  static override flags = {
    trust: Flags.string({...trustOptions, description: 'The trust store (trust.json from cert root).', required: true}),
    revocations: revocationsFlag,
    'allow-stale-revocations': Flags.boolean({description: 'Apply a revocation list past its nextUpdate instead of refusing it.', default: false}),
    'require-container-signature': Flags.boolean({
      description: 'Refuse an artifact whose signature does not cover its container (signed without containerDigest: container-unsigned) instead of warning.',
      default: false,
    }),
    installed: Flags.string({description: 'Verify this installed plugin instead of an artifact.', helpValue: '<id>', dependsOn: ['data-root']}),
    version: Flags.string({description: 'With --installed: the installed version (default: the active one).', dependsOn: ['installed']}),
    'data-root': Flags.string({...dataRootOptions, description: 'With --installed: the host data directory.'}),
  }

  async run(): Promise<void> {
    this.setExit(await verifyCommand({args: this.args, flags: this.flags}, this.context))
  }
}
