import {Args, Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {ExitCode, exitCodeForProblem} from './exit-codes.js'
import {dataRootOptions, revocationsFlag, trustOptions} from './flags.js'
import {errorProblem, warningProblem} from './json-result.js'
import {readRevocationList, readTrustStore, verifyArtifactFile, verifyInstalled, type VerificationResult} from '../src/index.js'

export default class Verify extends BaseCommand<typeof Verify> {
  static override summary = 'Verify the signature of a .svcPlugin artifact against a trust store.'
  static override description = `Runs the verification checks in order and stops at the first failure: the archive, the manifest and its signature trailer, the certificate chain up to a root of the trust store, the certificate's validity at the signing time, every file against files[], the publisher, and the Ed25519 signature over the canonical digest of every byte.

With --revocations, the root-signed revocation list (revocations.json, its revocations.sig beside it) is checked against the trust store first, then applied once the signature is proven: a revoked artifact, key or certificate gives the verdict Revoked (code revoked). A list that does not verify is refused (revocation-list-invalid), and so is one past its nextUpdate (revocation-list-stale) unless --allow-stale-revocations.

With --installed <id> --data-root <dir> (and optionally --version, default the active one), re-checks an installed version instead: every file against its files[] (each file changed, added or removed is reported with its code) and its signature, which must still be Trusted, or Unsigned for a version installed unsigned. Exit 0 valid, 1 invalid or not installed.

Output (stdout): "valid, signed by certificate <id>" or "invalid: <code>: <message>". --json prints {path, valid, verdict, certificateId, issuerCertificateId, signedAt, problems: [{code, severity, message}], warnings} and, with --revocations, revocations: {rootKeyId, sequence, issuedAt, nextUpdate, stale}; verdict is one of Trusted, Unsigned, Malformed, SignatureInvalid, ContentMismatch, UntrustedRoot, WrongCertificatePurpose, CertificateNotValidAtSignature, Revoked.

Exit status: 0 valid, 1 invalid (unsigned and revoked included) or an unusable revocation list, 2 usage error or an unsupported archive format, 3 the artifact, the trust store or the revocation list cannot be read (missing, not a ZIP).`

  static override examples = [
    '<%= config.bin %> verify weather-1.4.2.svcPlugin --trust trust.json',
    '<%= config.bin %> verify weather-1.4.2.svcPlugin --trust trust.json --json',
    '<%= config.bin %> verify weather-1.4.2.svcPlugin --trust trust.json --revocations revocations.json',
  ]

  static override advice = {'revocation-list-stale': 'Or pass --allow-stale-revocations to apply it anyway.'}

  static override args = {
    artifact: Args.string({description: 'The .svcPlugin to verify (omit with --installed).', required: false}),
  }

  static override flags = {
    trust: Flags.string({...trustOptions, description: 'The trust store (trust.json from cert root).', required: true}),
    revocations: revocationsFlag,
    'allow-stale-revocations': Flags.boolean({description: 'Apply a revocation list past its nextUpdate instead of refusing it.', default: false}),
    installed: Flags.string({description: 'Verify this installed plugin instead of an artifact.', helpValue: '<id>', dependsOn: ['data-root']}),
    version: Flags.string({description: 'With --installed: the installed version (default: the active one).', dependsOn: ['installed']}),
    'data-root': Flags.string({...dataRootOptions, description: 'With --installed: the host data directory.'}),
  }

  async run(): Promise<void> {
    const {artifact} = this.args
    if (this.flags.installed !== undefined) return this.verifyInstalledPlugin(this.flags.installed)
    if (artifact === undefined) this.error('Name the artifact to verify, or --installed <id> with --data-root.', {exit: 2})
    const {trust, json, revocations, 'allow-stale-revocations': allowStaleRevocations} = this.flags
    const result = await verifyArtifactFile(artifact, {trustFile: trust, revocationsFile: revocations, allowStaleRevocations})
    if (result.revocations?.stale) this.note(`warning revocation-list-stale: ${staleWarning(result.revocations)}`)
    if (json) {
      const {valid, verdict, certificateId, issuerCertificateId, signedAt, problems} = result
      const warnings = result.revocations?.stale ? [warningProblem({code: 'revocation-list-stale', message: staleWarning(result.revocations)})] : []
      this.outJson({
        path: artifact,
        valid,
        verdict,
        certificateId,
        issuerCertificateId,
        signedAt,
        problems: problems.map(errorProblem),
        warnings,
        ...(result.revocations === undefined ? {} : {revocations: result.revocations}),
      })
    } else if (result.valid) {
      this.out(`valid, signed by certificate ${result.certificateId}`)
    } else {
      for (const problem of result.problems) this.outAlways(`invalid: ${problem.code}: ${problem.message}`)
    }
    this.setExit(exitStatus(result))
  }

  /** `--installed <id>`: re-checks an installed version (the library's `verifyInstalled`) instead of an artifact. */
  private async verifyInstalledPlugin(id: string): Promise<void> {
    const {version, trust, json, revocations, 'allow-stale-revocations': allowStaleRevocations} = this.flags
    const result = await verifyInstalled(this.flags['data-root'] as string, id, {
      ...(version === undefined ? {} : {version}),
      trust: await readTrustStore(trust),
      ...(revocations === undefined ? {} : {revocations: await readRevocationList(revocations), allowStaleRevocations}),
    })
    for (const item of result.warnings) this.note(`warning ${item.code}: ${item.message}`)
    if (json) this.outJson({...result, problems: result.problems.map(errorProblem), warnings: result.warnings.map(warningProblem)})
    else if (result.valid) this.out(`valid, ${result.id} ${result.version} (${result.verdict})`)
    else for (const problem of result.problems) this.outAlways(`invalid: ${problem.code}: ${problem.message}`)
    this.setExit(result.valid ? ExitCode.success : ExitCode.invalid)
  }
}

/** The line of a stale revocation list applied with --allow-stale-revocations. */
function staleWarning(list: {sequence: number; nextUpdate: string}): string {
  return `the revocation list (sequence ${list.sequence}) is past its nextUpdate ${list.nextUpdate}; applied because --allow-stale-revocations was given.`
}

/** Valid is 0; otherwise the shared exit table decides from the deciding problem. */
function exitStatus(result: VerificationResult): ExitCode {
  const [first] = result.problems
  if (result.valid || first === undefined) return ExitCode.success
  return exitCodeForProblem(first)
}
