import {dotnetVersionPattern, isScriptExecutable, runtimeKindOf} from '../../model/index.js'
import type {Entrypoint} from '../../model/index.js'
import {describePointer} from '../../json/pointer.js'
import type {Rule} from './types.js'
import {declaredEntrypoints, hasMember, isRecord, member, quote} from './values.js'

const dll = /\.dll$/i

/**
 * Every entrypoint's executable suits its runtime (`invalid-entrypoint-runtime`): never a script;
 * `FrameworkDependent` starts a `.dll` and names `dotnetVersion` as MAJOR.MINOR; self-contained
 * (the default) never names a `.dll`; `runtime.kind` is one of the two, in any letter case.
 */
export const entrypointRuntimeIsConsistent: Rule = {
  name: 'entrypoint-runtime-is-consistent',
  codes: ['invalid-entrypoint-runtime'],
  level: 'development',
  check({manifest, rejected, emit}) {
    for (const {entry, pointer, executable, executablePointer} of declaredEntrypoints(manifest)) {
      const where = `${describePointer(executablePointer)} ${quote(executable)}`
      const judgeExecutable = executable !== null && !rejected.has(executablePointer)
      // Scripts are refused whatever the runtime says; the engine then marks the pointer rejected.
      if (judgeExecutable && isScriptExecutable(executable)) {
        emit({
          code: 'invalid-entrypoint-runtime',
          pointer: executablePointer,
          message: `${where} is a script (.sh, .bat, .cmd, .ps1 and .command never start a plugin); point it at the native executable or, for FrameworkDependent, the .dll.`,
        })
      }
      const runtimePointer = `${pointer}/runtime`
      const kindPointer = `${runtimePointer}/kind`
      const runtime = member(entry, 'runtime')
      // A runtime or kind of the wrong type is the schema's to report.
      if (rejected.has(runtimePointer) || rejected.has(kindPointer) || (runtime !== undefined && !isRecord(runtime))) continue
      const kind = runtimeKindOf(entry as Entrypoint)
      if (kind === null) {
        const declared = member(runtime, 'kind')
        if (typeof declared === 'string') {
          emit({
            code: 'invalid-entrypoint-runtime',
            pointer: kindPointer,
            message: `${describePointer(kindPointer)} ${quote(declared)} is not a runtime kind; use SelfContained or FrameworkDependent.`,
          })
        }
        continue
      }
      if (executable !== null && !rejected.has(executablePointer)) {
        if (kind === 'FrameworkDependent' && !dll.test(executable)) {
          emit({
            code: 'invalid-entrypoint-runtime',
            pointer: executablePointer,
            message: `${where} does not end in .dll, but runtime.kind is FrameworkDependent; point it at the plugin's .dll, or make the runtime SelfContained.`,
          })
        } else if (kind === 'SelfContained' && dll.test(executable)) {
          emit({
            code: 'invalid-entrypoint-runtime',
            pointer: executablePointer,
            message: `${where} is a .dll, which only a FrameworkDependent runtime starts; set runtime.kind to FrameworkDependent with a dotnetVersion, or point it at the self-contained executable.`,
          })
        }
      }
      if (kind !== 'FrameworkDependent') continue
      const versionPointer = `${runtimePointer}/dotnetVersion`
      const dotnetVersion = member(runtime, 'dotnetVersion')
      if (!hasMember(runtime, 'dotnetVersion')) {
        emit({
          code: 'invalid-entrypoint-runtime',
          pointer: runtimePointer,
          message: `${describePointer(runtimePointer)} is FrameworkDependent but has no dotnetVersion; add the .NET version as MAJOR.MINOR, e.g. "dotnetVersion": "8.0".`,
        })
      } else if (typeof dotnetVersion === 'string' && !rejected.has(versionPointer) && !dotnetVersionPattern.test(dotnetVersion)) {
        emit({
          code: 'invalid-entrypoint-runtime',
          pointer: versionPointer,
          message: `${describePointer(versionPointer)} ${quote(dotnetVersion)} is not MAJOR.MINOR; write the .NET version like "8.0".`,
        })
      }
    }
  },
}
