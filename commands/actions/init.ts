import {initPlugin, shellCommand} from '../../src/index.js'
import {ExitCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'

/** The arguments and flags of `svc-plugin init`, as parsed (by oclif, or by the direct path). */
export interface InitInput {
  readonly args: {readonly dir: string}
  readonly flags: {
    readonly id?: string | undefined
    readonly name?: string | undefined
    readonly version?: string | undefined
    readonly rid?: string | undefined
    readonly entrypoint?: string | undefined
    readonly json: boolean
  }
}

/** `svc-plugin init [DIR]`: writes a new plugin's manifest and a placeholder entrypoint. */
export async function initCommand({args: {dir}, flags}: InitInput, {output}: ActionContext): Promise<ExitCode> {
  const {id, name, version, rid, entrypoint, json} = flags
  const result = await initPlugin(dir, {
    ...(id === undefined ? {} : {id}),
    ...(name === undefined ? {} : {name}),
    ...(version === undefined ? {} : {version}),
    ...(rid === undefined ? {} : {rid}),
    ...(entrypoint === undefined ? {} : {entrypoint}),
  })
  if (json) {
    output.outJson(result)
    return ExitCode.success
  }
  if (result.createdFolder !== null) output.note(`Created ${result.createdFolder}.`)
  const check = shellCommand(['svc-plugin', 'validate'], [dir])
  output.out(`Created ${result.id} ${result.version} in ${result.directory}: ${result.files.map((file) => file.slice(result.directory.length + 1)).join(', ')}.${check === null ? '' : ` Check it with: ${check}`}`)
  return ExitCode.success
}
