import {listInstalled, plural} from '../../src/index.js'
import {ExitCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'

/** The flags of `svc-plugin list`, as parsed (by oclif, or by the direct path). */
export interface ListInput {
  readonly flags: {readonly 'data-root': string; readonly json: boolean}
}

/** `svc-plugin list`: the installed plugins of a data root, one line each. */
export async function listCommand({flags}: ListInput, {output}: ActionContext): Promise<ExitCode> {
  const plugins = await listInstalled(flags['data-root'])
  if (flags.json) {
    output.outJson({plugins})
    return ExitCode.success
  }
  for (const plugin of plugins) {
    const mismatched = plugin.mismatchedVersions.length === 0 ? '' : ` (manifest disagrees with its directory: ${plugin.mismatchedVersions.join(', ')})`
    output.out(`${plugin.id} ${plugin.activeVersion ?? '-'} [${plugin.versions.join(', ')}] ${plugin.verdict ?? 'unknown'}${plugin.pending ? ' (install pending)' : ''}${mismatched}`)
  }
  output.note(`${plural(plugins.length, 'plugin')} installed.`)
  return ExitCode.success
}
