import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {ModelError, dotnetVersionPattern, resolveEntrypoint, runtimeKindOf} from '../../src/model/index.js'
import type {Entrypoint, Manifest, ResolvedEntrypoint, RuntimeKind} from '../../src/model/index.js'

describe('runtimeKindOf', () => {
  const rows: Array<[string, Entrypoint, RuntimeKind | null]> = [
    ['runtime absent', {executable: 'app'}, 'SelfContained'],
    ['kind absent', {executable: 'app', runtime: {}}, 'SelfContained'],
    ['SelfContained', {executable: 'app', runtime: {kind: 'SelfContained'}}, 'SelfContained'],
    ['FrameworkDependent', {executable: 'app.dll', runtime: {kind: 'FrameworkDependent'}}, 'FrameworkDependent'],
    ['lowercase', {executable: 'app.dll', runtime: {kind: 'frameworkdependent'}}, 'FrameworkDependent'],
    ['uppercase', {executable: 'app', runtime: {kind: 'SELFCONTAINED'}}, 'SelfContained'],
    ['mixed case', {executable: 'app', runtime: {kind: 'selfCONTAINED'}}, 'SelfContained'],
    ['unknown text', {executable: 'app', runtime: {kind: 'Native'}}, null],
    ['empty text', {executable: 'app', runtime: {kind: ''}}, null],
    ['surrounding whitespace', {executable: 'app', runtime: {kind: ' SelfContained '}}, null],
    ['a Kelvin sign for k', {executable: 'app', runtime: {kind: 'Framewor\u212ADependent'}}, null],
    ['a number', {executable: 'app', runtime: {kind: 1 as unknown as string}}, null],
    ['null kind', {executable: 'app', runtime: {kind: null as unknown as string}}, null],
    ['runtime not an object', {executable: 'app', runtime: 'SelfContained' as unknown as Entrypoint['runtime']}, null],
    ['runtime null', {executable: 'app', runtime: null as unknown as Entrypoint['runtime']}, null],
  ]
  for (const [name, entry, expected] of rows) {
    it(`${name} gives ${String(expected)}`, () => {
      assert.equal(runtimeKindOf(entry), expected)
    })
  }
})

describe('dotnetVersionPattern', () => {
  const rows: Array<[string, boolean]> = [
    ['8.0', true],
    ['10.0', true],
    ['6.12', true],
    ['8', false],
    ['8.0.1', false],
    ['v8.0', false],
    ['8.x', false],
    ['', false],
    ['8.0\n', false],
  ]
  for (const [text, expected] of rows) {
    it(`${JSON.stringify(text)} ${expected ? 'matches' : 'does not match'}`, () => {
      assert.equal(dotnetVersionPattern.test(text), expected)
    })
  }
})

describe('resolveEntrypoint', () => {
  const entrypoints: Manifest['entrypoints'] = {
    'osx-x64': {executable: 'runtimes/osx-x64/app'},
    'win-x64': {executable: 'runtimes/win-x64/app.exe', arguments: ['--host', 'svc']},
    'linux-x64': {executable: 'runtimes/linux-x64/app.dll', runtime: {kind: 'frameworkDependent', dotnetVersion: '8.0'}},
  }

  const rows: Array<[string, Manifest['entrypoints'], string, ResolvedEntrypoint | null]> = [
    [
      'the exact key',
      entrypoints,
      'osx-x64',
      {rid: 'osx-x64', executable: 'runtimes/osx-x64/app', arguments: [], runtime: {kind: 'SelfContained'}},
    ],
    [
      'osx-arm64 falling back to osx-x64',
      entrypoints,
      'osx-arm64',
      {rid: 'osx-x64', executable: 'runtimes/osx-x64/app', arguments: [], runtime: {kind: 'SelfContained'}},
    ],
    [
      'win-arm64 falling back to win-x64, arguments kept in order',
      entrypoints,
      'win-arm64',
      {rid: 'win-x64', executable: 'runtimes/win-x64/app.exe', arguments: ['--host', 'svc'], runtime: {kind: 'SelfContained'}},
    ],
    [
      'osx-arm64 preferring its own key over the fallback',
      {...entrypoints, 'osx-arm64': {executable: 'runtimes/osx-arm64/app'}},
      'osx-arm64',
      {rid: 'osx-arm64', executable: 'runtimes/osx-arm64/app', arguments: [], runtime: {kind: 'SelfContained'}},
    ],
    [
      'a framework-dependent entry, kind normalised and dotnetVersion carried',
      entrypoints,
      'linux-x64',
      {
        rid: 'linux-x64',
        executable: 'runtimes/linux-x64/app.dll',
        arguments: [],
        runtime: {kind: 'FrameworkDependent', dotnetVersion: '8.0'},
      },
    ],
    [
      'a self-contained entry, dotnetVersion ignored',
      {'linux-arm64': {executable: 'app', runtime: {kind: 'SelfContained', dotnetVersion: '8.0'}}},
      'linux-arm64',
      {rid: 'linux-arm64', executable: 'app', arguments: [], runtime: {kind: 'SelfContained'}},
    ],
    ['linux-musl-x64 not falling back to linux-x64', entrypoints, 'linux-musl-x64', null],
    ['linux-arm64 not falling back to linux-x64', entrypoints, 'linux-arm64', null],
    ['win-x86 not falling back to win-x64', entrypoints, 'win-x86', null],
    ['osx-x64 not falling forward to osx-arm64', {'osx-arm64': {executable: 'app'}}, 'osx-x64', null],
    ['no any key', {any: {executable: 'app'}}, 'linux-x64', null],
    ['keys match case-sensitively', {'LINUX-X64': {executable: 'app'}}, 'linux-x64', null],
    ['an inherited property is not a key', {}, 'toString', null],
    ['an empty entrypoints object', {}, 'linux-x64', null],
  ]
  for (const [name, declared, rid, expected] of rows) {
    it(`${rid}: ${name}`, () => {
      assert.deepEqual(resolveEntrypoint({entrypoints: declared}, rid), expected)
    })
  }

  it('returns a copy of the arguments', () => {
    const args = ['--a']
    const resolved = resolveEntrypoint({entrypoints: {'linux-x64': {executable: 'app', arguments: args}}}, 'linux-x64')
    assert.notEqual(resolved?.arguments, args)
    assert.deepEqual(resolved?.arguments, ['--a'])
  })

  const malformed: Array<[string, unknown]> = [
    ['an entry that is not an object', 'app'],
    ['an entry without an executable', {arguments: []}],
    ['arguments that are not strings', {executable: 'app', arguments: [1]}],
    ['an unknown runtime kind', {executable: 'app', runtime: {kind: 'Native'}}],
  ]
  for (const [name, entry] of malformed) {
    it(`throws invalid-entrypoint for ${name}`, () => {
      const manifest = {entrypoints: {'linux-x64': entry}} as unknown as Pick<Manifest, 'entrypoints'>
      assert.throws(
        () => resolveEntrypoint(manifest, 'linux-x64'),
        (error: unknown) => error instanceof ModelError && error.code === 'invalid-entrypoint' && error.details['rid'] === 'linux-x64',
      )
    })
  }
})
