import {readFileSync} from 'node:fs'

/** Shape of an entrypoint key: a .NET runtime identifier (a bare RID without a hyphen is accepted). */
export const ridPattern: RegExp = /^[A-Za-z0-9.-]+$/

/** True when `s` is shaped like a runtime identifier. */
export function isRid(s: unknown): s is string {
  return typeof s === 'string' && ridPattern.test(s)
}

// The only fallbacks a host applies: Arm64 macOS and Windows run x64 code under emulation.
const ridFallbacks: Readonly<Record<string, string>> = {'osx-arm64': 'osx-x64', 'win-arm64': 'win-x64'}

/**
 * The entrypoint keys to try for a host, in order: the exact RID, then `osx-x64` for
 * `osx-arm64` and `win-x64` for `win-arm64`. Keys match case-sensitively; there is no `any` key and no
 * musl-to-glibc fallback.
 */
export function entrypointCandidates(hostRid: string): string[] {
  const fallback = Object.hasOwn(ridFallbacks, hostRid) ? ridFallbacks[hostRid] : undefined
  return fallback === undefined ? [hostRid] : [hostRid, fallback]
}

// Node's platform names to .NET's operating system part of a RID.
const ridOperatingSystems: Readonly<Record<string, string>> = {
  darwin: 'osx',
  win32: 'win',
  linux: 'linux',
  freebsd: 'freebsd',
  openbsd: 'openbsd',
  netbsd: 'netbsd',
  android: 'android',
  sunos: 'solaris',
  aix: 'aix',
}

// Node's architecture names to .NET's; unknown ones are carried as Node spells them.
const ridArchitectures: Readonly<Record<string, string>> = {
  x64: 'x64',
  ia32: 'x86',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
  loong64: 'loongarch64',
  riscv64: 'riscv64',
}

/**
 * The RID for a Node `platform`/`arch` pair: `linux-x64`, `linux-musl-arm64` (when `musl`), `osx-arm64`,
 * `win-x86`, … A platform or architecture .NET has no name for is carried as Node spells it.
 */
export function platformRid(platform: string, arch: string, musl: boolean): string {
  const os = Object.hasOwn(ridOperatingSystems, platform) ? (ridOperatingSystems[platform] as string) : platform
  const cpu = Object.hasOwn(ridArchitectures, arch) ? (ridArchitectures[arch] as string) : arch
  return os === 'linux' && musl ? `linux-musl-${cpu}` : `${os}-${cpu}`
}

/**
 * The C library `ldd` belongs to, from its text: the script glibc installs names the GNU C Library, and
 * musl's names its loader (`/lib/ld-musl-x86_64.so.1`); `undefined` for anything else.
 */
export function libcOfLdd(text: string): 'glibc' | 'musl' | undefined {
  if (text.includes('musl')) return 'musl'
  return text.includes('GNU C Library') || text.includes('GLIBC') ? 'glibc' : undefined
}

/**
 * True on a Linux whose C library is not glibc. `/usr/bin/ldd` says which it is in one small read; without
 * it, the diagnostic report does (it names no glibc runtime version on musl), which costs a command tens of
 * milliseconds to gather.
 */
function runsOnMusl(): boolean {
  if (process.platform !== 'linux') return false
  let ldd: 'glibc' | 'musl' | undefined
  try {
    ldd = libcOfLdd(readFileSync('/usr/bin/ldd', 'latin1'))
  } catch {
    ldd = undefined
  }
  if (ldd !== undefined) return ldd === 'musl'
  const report = process.report?.getReport() as {header?: {glibcVersionRuntime?: unknown}} | undefined
  return report?.header !== undefined && report.header.glibcVersionRuntime === undefined
}

let cachedHostRid: string | undefined

/** The running platform's RID (`linux-x64`, `linux-musl-x64`, `osx-arm64`, `win-x64`, …); computed once. */
export function hostRid(): string {
  cachedHostRid ??= platformRid(process.platform, process.arch, runsOnMusl())
  return cachedHostRid
}
