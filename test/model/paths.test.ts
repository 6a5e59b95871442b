import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {checkExecutablePath, checkIconPath, isScriptExecutable} from '../../src/model/index.js'
import type {ExecutablePathProblem, IconPathProblem} from '../../src/model/index.js'

describe('checkExecutablePath', () => {
  const rows: Array<[string, string, ExecutablePathProblem | null]> = [
    ['a file at the root', 'app', null],
    ['a nested file', 'runtimes/linux-x64/app', null],
    ['backslash separators', 'runtimes\\win-x64\\app.exe', null],
    ['a leading ./', './app', null],
    ['a dotted name that is not ..', 'bin/...app', null],
    ['a segment of three dots', 'bin/.../app', null],
    ['a name starting with ..', '..app', null],
    ['a colon after the first character', 'bin/a:b', null],
    ['the empty string', '', 'empty'],
    ['a leading slash', '/usr/bin/app', 'absolute'],
    ['a leading backslash', '\\app.exe', 'absolute'],
    ['a UNC path', '\\\\server\\share\\app.exe', 'absolute'],
    ['a drive path', 'C:\\app.exe', 'drive'],
    ['a drive path with a forward slash', 'c:/app.exe', 'drive'],
    ['a drive-relative path', 'C:app.exe', 'drive'],
    ['a leading ..', '../app', 'parent-segment'],
    ['a .. in the middle, resolving back inside', 'bin/../app', 'parent-segment'],
    ['a trailing ..', 'bin/..', 'parent-segment'],
    ['a bare ..', '..', 'parent-segment'],
    ['a .. between backslashes', 'bin\\..\\..\\app.exe', 'parent-segment'],
    ['a .. between mixed separators', 'bin/..\\app', 'parent-segment'],
  ]
  for (const [name, path, expected] of rows) {
    it(`${name} (${JSON.stringify(path)}) gives ${String(expected)}`, () => {
      assert.equal(checkExecutablePath(path), expected)
    })
  }
})

describe('isScriptExecutable', () => {
  const rows: Array<[string, boolean]> = [
    ['run.sh', true],
    ['run.bat', true],
    ['run.cmd', true],
    ['run.ps1', true],
    ['run.command', true],
    ['bin/RUN.SH', true],
    ['Run.Bat', true],
    ['run.PS1', true],
    ['run.Command', true],
    ['app', false],
    ['app.exe', false],
    ['app.dll', false],
    ['run.sh.exe', false],
    ['runsh', false],
    ['run.shx', false],
    ['bin/sh', false],
    ['run.commands', false],
  ]
  for (const [path, expected] of rows) {
    it(`${path} is ${expected ? '' : 'not '}a script`, () => {
      assert.equal(isScriptExecutable(path), expected)
    })
  }
})

describe('checkIconPath', () => {
  const rows: Array<[string, string, IconPathProblem | null]> = [
    ['a file at the root', 'icon.png', null],
    ['a nested file', 'assets/icons/icon.png', null],
    ['a leading ./', './icon.png', null],
    ['a name starting with ..', '..icon.png', null],
    ['the empty string', '', 'empty'],
    ['a leading slash', '/icon.png', 'absolute'],
    ['a leading backslash', '\\icon.png', 'absolute'],
    ['a drive path', 'C:/icon.png', 'absolute'],
    ['a drive-relative path', 'C:icon.png', 'absolute'],
    ['a backslash separator', 'assets\\icon.png', 'backslash'],
    ['a backslash .. (reported as a backslash)', 'assets\\..\\icon.png', 'backslash'],
    ['a leading ..', '../icon.png', 'parent-segment'],
    ['a .. in the middle', 'assets/../icon.png', 'parent-segment'],
    ['a trailing ..', 'assets/..', 'parent-segment'],
  ]
  for (const [name, path, expected] of rows) {
    it(`${name} (${JSON.stringify(path)}) gives ${String(expected)}`, () => {
      assert.equal(checkIconPath(path), expected)
    })
  }
})
