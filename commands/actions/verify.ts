import {verifyArtifact, type VerificationResult} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode, exitCodeForProblem} from '../exit-codes.js'
import {UsageError} from '../failure.js'
import {errorProblem, warningProblem} from '../json-result.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Verify from '../verify.js'

/** The arguments and flags of `svc-plugin verify`, as oclif parsed them from the declarations of {@link Verify}. */
export type VerifyInput = CommandInput<typeof Verify>

/** `svc-plugin verify`: verifies an artifact (or, with --installed, an installed version), prints the verdict and gives the exit status. */
export async function verifyCommand(input: VerifyInput, {output}: ActionContext): Promise<ExitCode> {
  const {args: {artifact}, flags} = input
  if (flags.installed !== undefined) {
    // Loaded only when asked for: an installed version is read from a data root, which an artifact's check does not need.
    const {verifyInstalledPlugin} = await import('./verify-installed.js')
    return verifyInstalledPlugin(flags.installed, input, output)
  }
  if (artifact === undefined) throw new UsageError('Name the artifact to verify, or --installed <id> with --data-root.')
  const {trust, json, revocations, 'allow-stale-revocations': allowStaleRevocations, 'require-container-signature': requireContainerSignature} = flags
  const storeSignature = flags['store-signature']
  const result = await verifyArtifact(artifact, {
    trustFile: trust,
    revocationsFile: revocations,
    allowStaleRevocations,
    requireContainerSignature,
    requireStoreSignature: flags['require-store-signature'],
    ...(storeSignature === undefined ? {} : {storeSignature}),
    signal: commandSignal(),
  })
  const warnings = [...result.warnings, ...(result.revocations?.stale ? [{code: 'revocation-list-stale', message: staleWarning(result.revocations)}] : [])]
  for (const item of warnings) output.note(`warning ${item.code}: ${item.message}`)
  if (json) {
    const {valid, verdict, certificateId, issuerCertificateId, signedAt, problems} = result
    output.outJson({
      path: artifact,
      valid,
      verdict,
      certificateId,
      issuerCertificateId,
      signedAt,
      problems: problems.map(errorProblem),
      warnings: warnings.map(warningProblem),
      ...(result.revocations === undefined ? {} : {revocations: result.revocations}),
    })
  } else if (result.valid) {
    const store = result.storeSignature === undefined ? '' : `, countersigned by store ${result.storeSignature.store} (certificate ${result.storeSignature.certificateId})`
    output.out(`valid, signed by certificate ${result.certificateId}${store}`)
  } else {
    for (const problem of result.problems) output.outAlways(`invalid: ${problem.code}: ${problem.message}`)
  }
  return exitStatus(result)
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
