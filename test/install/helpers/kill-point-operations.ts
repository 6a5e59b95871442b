import {activate} from '../../../src/install/activate.js'
import {install} from '../../../src/install/install.js'
import type {InstallOptions} from '../../../src/install/types.js'
import {uninstall} from '../../../src/install/uninstall.js'

/** One installer operation, as plain JSON so that a child process can be told to run it. */
export type KillPointOperation =
  | {kind: 'install'; artifact: string; options: Omit<InstallOptions, 'now' | 'onProgress'>}
  | {kind: 'activate'; dataRoot: string; id: string; version: string}
  | {kind: 'uninstall'; dataRoot: string; id: string; purge: boolean}

/** Runs the operation; resolves to what it returned. */
export async function runOperation(operation: KillPointOperation): Promise<unknown> {
  switch (operation.kind) {
    case 'install':
      return install(operation.artifact, operation.options)
    case 'activate':
      return activate(operation.dataRoot, operation.id, operation.version)
    case 'uninstall':
      return uninstall(operation.dataRoot, operation.id, {purge: operation.purge})
    default:
      throw new Error(`unknown operation ${JSON.stringify(operation)}`)
  }
}
