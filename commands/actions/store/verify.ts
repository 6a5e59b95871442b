import {uploadTextLines, verifyUploadFiles, type UploadReport} from '../../../src/index.js'
import {commandSignal} from '../../command-process.js'
import {ExitCode, exitCodeForProblem} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'

/** The arguments and flags of `svc-plugin store verify`, as parsed (by oclif, or by the direct path). */
export interface StoreVerifyInput {
  readonly args: {readonly artifact: string}
  readonly flags: {
    readonly 'account-name': string
    readonly 'account-id'?: string | undefined
    readonly trust: string
    readonly published?: readonly string[] | undefined
    readonly revocations?: string | undefined
    readonly 'allow-stale-revocations': boolean
    readonly 'require-container-signature': boolean
    readonly json: boolean
    readonly quiet: boolean
    readonly 'no-color': boolean
  }
}

/** `svc-plugin store verify`: the store's check of an upload; prints the report and gives the exit status. */
export async function storeVerifyCommand({args: {artifact}, flags}: StoreVerifyInput, {output}: ActionContext): Promise<ExitCode> {
  const {trust, published, revocations, json, quiet, 'account-name': name, 'account-id': id, 'allow-stale-revocations': allowStaleRevocations} = flags
  const report = await verifyUploadFiles(artifact, {
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
