import {uploadTextLines, verifyUpload, type UploadReport} from '#cli'
import {commandSignal} from '../../command-process.js'
import {ExitCode, exitCodeForProblem} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'
import type {CommandInput} from '../../base.js'
import type StoreVerify from '../../store/verify.js'

/** The arguments and flags of `svc-plugin store verify`, as oclif parsed them from the declarations of {@link StoreVerify}. */
export type StoreVerifyInput = CommandInput<typeof StoreVerify>

/** `svc-plugin store verify`: the store's check of an upload; prints the report and gives the exit status. */
export async function storeVerifyCommand({args: {artifact}, flags}: StoreVerifyInput, {output}: ActionContext): Promise<ExitCode> {
  const {trust, published, revocations, json, quiet, 'account-name': name, 'account-id': id, 'allow-stale-revocations': allowStaleRevocations} = flags
  const report = await verifyUpload(artifact, {
    account: id === undefined ? {name} : {name, id},
    trustFile: trust,
    publishedVersions: [...(published ?? [])],
    revocationsFile: revocations,
    allowStaleRevocations,
    requireContainerSignature: flags['require-container-signature'],
    signal: commandSignal(),
  })
  // The library's report as it is, behind the path it names.
  if (json) {
    output.outJson({path: artifact, ...report})
  } else if (!quiet || !report.accepted) {
    output.outAlways(uploadTextLines(report))
  }
  return exitStatus(report)
}

/** 0 accepted; an artifact the reader could not open at all decides by the shared table (3 for a missing file); else 1. */
function exitStatus(report: UploadReport): ExitCode {
  if (report.accepted) return ExitCode.success
  const unreadable = report.problems.find((problem) => problem.archiveCode !== undefined)
  return unreadable === undefined ? ExitCode.invalid : exitCodeForProblem(unreadable)
}
