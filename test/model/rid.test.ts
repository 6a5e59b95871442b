import {readFileSync} from 'node:fs'
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {entrypointCandidates, hostRid, isRid, libcOfLdd, platformRid, ridPattern} from '../../src/model/index.js'

describe('RID keys', () => {
  const valid = ['linux-x64', 'linux-musl-arm64', 'osx-arm64', 'win-x86', 'win10-x64', 'ubuntu.22.04-x64', 'linux', 'LINUX-X64']
  for (const rid of valid) {
    it(`accepts ${rid}`, () => {
      assert.equal(isRid(rid), true)
    })
  }

  const invalid: Array<[string, unknown]> = [
    ['the empty string', ''],
    ['an underscore', 'linux_x64'],
    ['a space', 'linux x64'],
    ['a slash', 'linux/x64'],
    ['a trailing newline', 'linux-x64\n'],
    ['a non-ASCII letter', 'línux-x64'],
    ['a number', 64],
  ]
  for (const [name, rid] of invalid) {
    it(`rejects ${name}: ${JSON.stringify(rid)}`, () => {
      assert.equal(isRid(rid), false)
    })
  }

  it('exports the runtime identifier pattern', () => {
    assert.equal(ridPattern.source, '^[A-Za-z0-9.-]+$')
  })
})

describe('entrypointCandidates', () => {
  const rows: Array<[string, string[]]> = [
    ['osx-arm64', ['osx-arm64', 'osx-x64']],
    ['win-arm64', ['win-arm64', 'win-x64']],
    ['linux-musl-arm64', ['linux-musl-arm64']],
    ['linux-musl-x64', ['linux-musl-x64']],
    ['linux-x64', ['linux-x64']],
    ['linux-arm64', ['linux-arm64']],
    ['osx-x64', ['osx-x64']],
    ['win-x64', ['win-x64']],
    ['win-x86', ['win-x86']],
    ['OSX-ARM64', ['OSX-ARM64']],
    ['toString', ['toString']],
  ]
  for (const [rid, expected] of rows) {
    it(`${rid} tries ${expected.join(' then ')}`, () => {
      assert.deepEqual(entrypointCandidates(rid), expected)
    })
  }
})

describe('platformRid', () => {
  const rows: Array<[string, string, boolean, string]> = [
    ['linux', 'x64', false, 'linux-x64'],
    ['linux', 'arm64', false, 'linux-arm64'],
    ['linux', 'x64', true, 'linux-musl-x64'],
    ['linux', 'arm64', true, 'linux-musl-arm64'],
    ['linux', 'arm', false, 'linux-arm'],
    ['darwin', 'x64', false, 'osx-x64'],
    ['darwin', 'arm64', false, 'osx-arm64'],
    ['win32', 'x64', false, 'win-x64'],
    ['win32', 'arm64', false, 'win-arm64'],
    ['win32', 'ia32', false, 'win-x86'],
    ['freebsd', 'x64', false, 'freebsd-x64'],
    ['darwin', 'arm64', true, 'osx-arm64'],
    ['haiku', 'mips', false, 'haiku-mips'],
  ]
  for (const [platform, arch, musl, expected] of rows) {
    it(`${platform} ${arch}${musl ? ' musl' : ''} is ${expected}`, () => {
      assert.equal(platformRid(platform, arch, musl), expected)
    })
  }
})

describe('hostRid', () => {
  it('names the running platform and architecture', () => {
    const glibc = platformRid(process.platform, process.arch, false)
    const musl = platformRid(process.platform, process.arch, true)
    const rid = hostRid()
    assert.equal(isRid(rid), true)
    assert.ok(rid === glibc || (process.platform === 'linux' && rid === musl), rid)
  })

  it('answers the same on every call', () => {
    assert.equal(hostRid(), hostRid())
  })

  it('tells musl from glibc by the ldd it finds as the diagnostic report does, on this machine', () => {
    const lddText = (() => {
      try {
        return readFileSync('/usr/bin/ldd', 'latin1')
      } catch {
        return undefined
      }
    })()
    if (process.platform !== 'linux' || lddText === undefined) return
    const report = process.report.getReport() as {header?: {glibcVersionRuntime?: unknown}}
    assert.equal(libcOfLdd(lddText), report.header?.glibcVersionRuntime === undefined ? 'musl' : 'glibc')
  })

  it('reads the ldd of each C library, and nothing else as either', () => {
    assert.equal(libcOfLdd('#!/bin/bash\n# This file is part of the GNU C Library.\n'), 'glibc')
    assert.equal(libcOfLdd('#!/bin/sh\nexec /lib/ld-musl-x86_64.so.1 --list "$@"\n'), 'musl')
    assert.equal(libcOfLdd('#!/bin/sh\necho not a loader\n'), undefined)
  })
})
