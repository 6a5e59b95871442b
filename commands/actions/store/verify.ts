import {uploadTextLines, verifyUpload, type UploadReport} from '#cli'
import {commandSignal} from '../../command-process.js'
import {ExitCode, exitCodeForProblem} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'
import type {CommandInput} from '../../base.js'
import type StoreVerify from '../../store/verify.js'

/** The arguments and flags of `svc-plugin store verify`, as oclif parsed them from the declarations of {@link StoreVerify}. */
export type StoreVerifyInput = CommandInput<typeof StoreVerify>

/** The flags of the store's verification of an upload (`uploadFlags`), as oclif parsed them. */
export type UploadFlagValues = Pick<StoreVerifyInput['flags'], 'account-name' | 'account-id' | 'trust' | 'published' | 'revocations' | 'allow-stale-revocations'>

/** The library's options of the store's verification, from its flags. */
export function uploadOptionsOf(flags: UploadFlagValues) {
  const {'account-name': name, 'account-id': id} = flags
  return {
    account: id === undefined ? {name} : {name, id},
    trustFile: flags.trust,
    publishedVersions: [...(flags.published ?? [])],
    revocationsFile: flags.revocations,
    allowStaleRevocations: flags['allow-stale-revocations'],
  }
}

/** `svc-plugin store verify`: the store's check of an upload; prints the report and gives the exit status. */
export async function storeVerifyCommand({args: {artifact}, flags}: StoreVerifyInput, {output}: ActionContext): Promise<ExitCode> {
  const {json, quiet} = flags
  const report = await verifyUpload(artifact, {
    ...uploadOptionsOf(flags),
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
