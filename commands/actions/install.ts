import {asksForMore, describeChanges, formatMiB, install, isSvcPluginError, readRevocationList, readTrustStore, type InstallWarning} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode} from '../exit-codes.js'
import {sayWhileWaiting} from '../lock-wait.js'
import {AdvisedRefusal} from '../failure.js'
import {environmentVariables} from '../environment-variables.js'
import {warningProblem} from '../json-result.js'
import {progressBar} from '../progress.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Install from '../install.js'

/** Artifacts at least this large get a progress bar (when stderr is a terminal). */
const progressThresholdBytes = 64 * 1024 * 1024

/** The arguments and flags of `svc-plugin install`, as oclif parsed them from the declarations of {@link Install}. */
export type InstallInput = CommandInput<typeof Install>

/** `svc-plugin install`: the library `install` behind flags, with a progress bar for a large artifact. */
export async function installCommand({args: {artifact}, flags}: InstallInput, {output}: ActionContext): Promise<ExitCode> {
  const {rid, protocol, trust, revocations, force, activate, retain, json, quiet} = flags
  const hostVersion = flags['host-version']
  const expectId = flags['expect-id']
  const expectVersion = flags['expect-version']
  const expectSha256 = flags['expect-sha256']
  const bar = progressBar('install', !json && !quiet)
  const result = await install(artifact, {
    dataRoot: flags['data-root'],
    ...(rid === undefined ? {} : {hostRid: rid}),
    ...(hostVersion === undefined ? {} : {hostVersion}),
    protocol,
    ...(trust === undefined ? {} : {trust: await readTrustStore(trust)}),
    allowUnsigned: flags['allow-unsigned'],
    ...(revocations === undefined ? {} : {revocations: await readRevocationList(revocations)}),
    allowStaleRevocations: flags['allow-stale-revocations'],
    requireContainerSignature: flags['require-container-signature'],
    requireStoreSignature: flags['require-store-signature'],
    ...(flags['store-signature'] === undefined ? {} : {storeSignature: flags['store-signature']}),
    ...(expectId === undefined ? {} : {expectId}),
    ...(expectVersion === undefined ? {} : {expectVersion}),
    ...(expectSha256 === undefined ? {} : {expectSha256}),
    // Without a consent callback the library refuses an update that asks for more (consent-required).
    ...(flags['accept-new-permissions'] ? {consent: () => true} : {}),
    force,
    activate,
    retain,
    signal: commandSignal(),
    onLockWait: sayWhileWaiting(output),
    onProgress: ({step, bytesDone, bytesTotal}) => {
      if (step === 'extracting' && bytesTotal >= progressThresholdBytes) bar.update(bytesDone, bytesTotal, formatMiB(bytesDone))
    },
  })
    .catch((error: unknown) => {
      // A signed artifact refused for want of a trust store says where one comes from.
      if (isSvcPluginError(error) && error.code === 'signature-untrusted' && trust === undefined) {
        throw new AdvisedRefusal(error, `A signed artifact is installed only against a trust store: pass --trust <file> (or set ${environmentVariables.trust}).`)
      }
      throw error
    })
    .finally(() => bar.finish())
  if (json) {
    output.outJson({...result, warnings: result.warnings.map(warningProblem)})
    return ExitCode.success
  }
  for (const item of result.warnings) output.note(warningLine(item))
  if (result.changes !== null && asksForMore(result.changes)) output.note(`accepted: ${describeChanges(result.changes, 'added').join(', ')}`)
  output.out(`Installed ${result.id} ${result.version} (${result.verdict}${result.activated ? '' : ', not activated'}) -> ${result.directory}`)
  return ExitCode.success
}

/** One warning line for stderr. */
function warningLine(item: InstallWarning): string {
  return `warning ${item.code}: ${item.message}${item.blocking ? ' (blocks auto-start)' : ''}`
}
