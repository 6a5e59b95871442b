import path from 'node:path'
import {resolveLimits} from '../archive/limits.js'
import type {ArchiveLimits} from '../archive/types.js'
import {hostRid as currentHostRid} from '../model/rid.js'
import {defaultProtocolRange, developmentHostVersion, type HostCompatibility} from './compatibility.js'
import {InstallError} from './errors.js'
import {assertPluginId, assertVersion} from './layout.js'
import type {InstallOptions} from './types.js'

/** What every operation on a data root needs before anything else: the data root and the reference time. */
export interface OperationBasics {
  /** The data root, resolved. */
  dataRoot: string
  /** The clock, read once: certificates, `signedAt` and revocation lists are judged at this instant. */
  now: Date
}

/** Every option of an install with its default applied and checked. */
export interface InstallSettings extends OperationBasics {
  hostRid: string
  host: HostCompatibility
  retain: number
  activate: boolean
  limits: ArchiveLimits
  /** `sha256:` + lowercase hex, when the caller expects a file digest. */
  expectSha256: string | null
}

/** Checks the data root and the reference time (`invalid-argument`), reading the clock once when `now` is not given. */
export function operationBasics(options: {dataRoot?: unknown; now?: unknown}): OperationBasics {
  if (typeof options?.dataRoot !== 'string' || options.dataRoot === '') {
    throw new InstallError('invalid-argument', 'The data root must name a directory.', {details: {argument: 'dataRoot'}})
  }
  if (options.now !== undefined && !(options.now instanceof Date && !Number.isNaN(options.now.getTime()))) {
    throw new InstallError('invalid-argument', 'now must be a valid Date.', {details: {argument: 'now'}})
  }
  return {dataRoot: path.resolve(options.dataRoot), now: (options.now as Date | undefined) ?? new Date()}
}

/** Every other option of an install, checked (`invalid-argument`), with its default. */
export function resolveSettings(options: InstallOptions, basics: OperationBasics): InstallSettings {
  const hostVersion = options.hostVersion ?? developmentHostVersion
  assertVersion(hostVersion)
  const protocol = options.protocol ?? defaultProtocolRange
  if (!Number.isSafeInteger(protocol.minimum) || !Number.isSafeInteger(protocol.maximum) || protocol.minimum < 1 || protocol.maximum < protocol.minimum) {
    throw new InstallError('invalid-argument', `The host protocol range ${protocol.minimum}-${protocol.maximum} is not one (integers, 1 <= minimum <= maximum).`, {
      details: {argument: 'protocol', value: protocol},
    })
  }
  const retain = options.retain ?? 1
  if (!Number.isSafeInteger(retain) || retain < 0) {
    throw new InstallError('invalid-argument', `The number of versions to retain must be a whole number, not ${retain}.`, {details: {argument: 'retain', value: retain}})
  }
  if (options.expectId !== undefined) assertPluginId(options.expectId)
  if (options.expectVersion !== undefined) assertVersion(options.expectVersion)
  const expectSha256 = options.expectSha256 === undefined ? null : /^(?:sha256:)?([0-9a-fA-F]{64})$/.exec(options.expectSha256)?.[1]
  if (expectSha256 === undefined) {
    throw new InstallError('invalid-argument', `The expected SHA-256 ${JSON.stringify(options.expectSha256)} is not a SHA-256 digest (64 hex digits).`, {details: {argument: 'expectSha256'}})
  }
  return {
    ...basics,
    hostRid: options.hostRid ?? currentHostRid(),
    host: {hostVersion, protocol: {minimum: protocol.minimum, maximum: protocol.maximum}},
    retain,
    activate: options.activate ?? true,
    limits: resolveLimits(options.limits),
    expectSha256: expectSha256 === null ? null : `sha256:${expectSha256.toLowerCase()}`,
  }
}
