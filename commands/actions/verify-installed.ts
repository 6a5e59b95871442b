import {readRevocationList, readTrustStore, verifyInstalled} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode} from '../exit-codes.js'
import {errorProblem, warningProblem} from '../json-result.js'
import type {CommandOutput} from '../output.js'
import type {VerifyInput} from './verify.js'

/** `--installed <id>`: re-checks an installed version (the library's `verifyInstalled`) instead of an artifact. */
export async function verifyInstalledPlugin(id: string, {flags}: VerifyInput, output: CommandOutput): Promise<ExitCode> {
  const {version, trust, json, revocations, 'allow-stale-revocations': allowStaleRevocations} = flags
  const result = await verifyInstalled(flags['data-root'] as string, id, {
    ...(version === undefined ? {} : {version}),
    trust: await readTrustStore(trust),
    ...(revocations === undefined ? {} : {revocations: await readRevocationList(revocations), allowStaleRevocations}),
    requireStoreSignature: flags['require-store-signature'],
    signal: commandSignal(),
  })
  for (const item of result.warnings) output.note(`warning ${item.code}: ${item.message}`)
  if (json) output.outJson({...result, problems: result.problems.map(errorProblem), warnings: result.warnings.map(warningProblem)})
  else if (result.valid) output.out(`valid, ${result.id} ${result.version} (${result.verdict})`)
  else for (const problem of result.problems) output.outAlways(`invalid: ${problem.code}: ${problem.message}`)
  return result.valid ? ExitCode.success : ExitCode.invalid
}

