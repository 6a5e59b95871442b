import {checkExecutablePath} from '../../model/index.js'
import type {ExecutablePathProblem} from '../../model/index.js'
import {describePointer} from '../../json/pointer.js'
import type {Rule} from './types.js'
import {declaredEntrypoints, quote} from './values.js'

const why: Record<ExecutablePathProblem, string> = {
  empty: 'is empty',
  absolute: 'is an absolute path',
  drive: 'starts with a drive letter',
  'parent-segment': 'has a ".." segment, which leaves the version directory',
}

/** Every entrypoint executable is a relative path inside the version directory (`entrypoint-outside-version-directory`). */
export const executablesStayInsideVersionDirectory: Rule = {
  name: 'executables-stay-inside-version-directory',
  codes: ['entrypoint-outside-version-directory'],
  level: 'development',
  claims: [{keywords: ['minLength'], pointer: /^\/entrypoints\/[^/]*\/executable$/}],
  check({manifest, rejected, emit}) {
    for (const {executable, executablePointer} of declaredEntrypoints(manifest)) {
      if (executable === null || rejected.has(executablePointer)) continue
      const problem = checkExecutablePath(executable)
      if (problem === null) continue
      emit({
        code: 'entrypoint-outside-version-directory',
        pointer: executablePointer,
        message: `${describePointer(executablePointer)} ${quote(executable)} ${why[problem]}; give the executable's path relative to the version directory, e.g. runtimes/win-x64/MyPlugin.exe.`,
      })
    }
  },
}
