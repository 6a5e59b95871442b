import {readRevocationList, readTrustStore, verifyArtifactFile, verifyInstalled, type VerificationResult} from '../../src/index.js'
import {commandSignal} from '../command-process.js'
import {ExitCode, exitCodeForProblem} from '../exit-codes.js'
import {UsageError} from '../failure.js'
import {errorProblem, warningProblem} from '../json-result.js'
import type {CommandOutput} from '../output.js'
import type {ActionContext} from './action.js'

/** The arguments and flags of `svc-plugin verify`, as parsed (by oclif, or by the direct path). */
export interface VerifyInput {
  readonly args: {readonly artifact?: string | undefined}
  readonly flags: {
    readonly trust: string
    readonly revocations?: string | undefined
    readonly 'allow-stale-revocations': boolean
    readonly 'require-container-signature': boolean
    readonly installed?: string | undefined
    readonly version?: string | undefined
    readonly 'data-root'?: string | undefined
    readonly json: boolean
  }
}

/** `svc-plugin verify`: verifies an artifact (or, with --installed, an installed version), prints the verdict and gives the exit status. */
export async function verifyCommand(input: VerifyInput, {output}: ActionContext): Promise<ExitCode> {
  const {args: {artifact}, flags} = input
  if (flags.installed !== undefined) return verifyInstalledPlugin(flags.installed, input, output)
  if (artifact === undefined) throw new UsageError('Name the artifact to verify, or --installed <id> with --data-root.')
  const {trust, json, revocations, 'allow-stale-revocations': allowStaleRevocations, 'require-container-signature': requireContainerSignature} = flags
  const result = await verifyArtifactFile(artifact, {trustFile: trust, revocationsFile: revocations, allowStaleRevocations, requireContainerSignature, signal: commandSignal()})
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
    output.out(`valid, signed by certificate ${result.certificateId}`)
  } else {
    for (const problem of result.problems) output.outAlways(`invalid: ${problem.code}: ${problem.message}`)
  }
  return exitStatus(result)
}

/** `--installed <id>`: re-checks an installed version (the library's `verifyInstalled`) instead of an artifact. */
async function verifyInstalledPlugin(id: string, {flags}: VerifyInput, output: CommandOutput): Promise<ExitCode> {
  const {version, trust, json, revocations, 'allow-stale-revocations': allowStaleRevocations} = flags
  const result = await verifyInstalled(flags['data-root'] as string, id, {
    ...(version === undefined ? {} : {version}),
    trust: await readTrustStore(trust),
    ...(revocations === undefined ? {} : {revocations: await readRevocationList(revocations), allowStaleRevocations}),
    signal: commandSignal(),
  })
  for (const item of result.warnings) output.note(`warning ${item.code}: ${item.message}`)
  if (json) output.outJson({...result, problems: result.problems.map(errorProblem), warnings: result.warnings.map(warningProblem)})
  else if (result.valid) output.out(`valid, ${result.id} ${result.version} (${result.verdict})`)
  else for (const problem of result.problems) output.outAlways(`invalid: ${problem.code}: ${problem.message}`)
  return result.valid ? ExitCode.success : ExitCode.invalid
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
