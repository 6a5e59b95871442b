import type {Manifest} from './manifest.js'

/** The effective shutdown and health settings of a manifest, every default and clamp applied. */
export type EffectiveSettings = {
  shutdown: {gracefulTimeoutSeconds: number}
  health: {path: string; intervalSeconds: number; timeoutSeconds: number; unhealthyThreshold: number}
}

/** The inclusive bounds and default of one clamped setting. */
export type SettingClamp = {readonly min: number; readonly max: number; readonly default: number}

/** Clamps of the clamped settings (the manifest format's limits): the only place these numbers live. */
export const settingClamps = {
  gracefulTimeoutSeconds: {min: 1, max: 60, default: 10},
  intervalSeconds: {min: 5, max: 120, default: 15},
  timeoutSeconds: {min: 1, max: 10, default: 2},
  unhealthyThreshold: {min: 2, max: 10, default: 3},
} as const satisfies Record<string, SettingClamp>

/** The health probe path when the manifest declares none. */
export const defaultHealthPath = '/_svc/health'

/**
 * The effective value of a clamped setting: the default when `value` is not a finite number; otherwise
 * `value` truncated toward zero (so `2.9` is 2 and `-0.5` is 0), then clamped into `[min, max]`.
 */
export function clampSetting(value: unknown, clamp: SettingClamp): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return clamp.default
  // `+ 0` turns a truncated -0 into 0.
  return Math.min(clamp.max, Math.max(clamp.min, Math.trunc(value) + 0))
}

/** Own property `key` of `block` when `block` is a plain object, else undefined. */
function member(block: unknown, key: string): unknown {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return undefined
  return Object.hasOwn(block, key) ? (block as Record<string, unknown>)[key] : undefined
}

/**
 * The shutdown and health settings a host applies: out-of-range numbers are clamped, never
 * rejected; a value that is not a finite number gives the default; a non-integer is truncated toward zero
 * before clamping. `health.path` defaults to `/_svc/health` when it is not a non-empty string.
 */
export function effectiveSettings(manifest: Pick<Manifest, 'shutdown' | 'health'>): EffectiveSettings {
  const {shutdown, health} = manifest
  const path = member(health, 'path')
  return {
    shutdown: {gracefulTimeoutSeconds: clampSetting(member(shutdown, 'gracefulTimeoutSeconds'), settingClamps.gracefulTimeoutSeconds)},
    health: {
      path: typeof path === 'string' && path !== '' ? path : defaultHealthPath,
      intervalSeconds: clampSetting(member(health, 'intervalSeconds'), settingClamps.intervalSeconds),
      timeoutSeconds: clampSetting(member(health, 'timeoutSeconds'), settingClamps.timeoutSeconds),
      unhealthyThreshold: clampSetting(member(health, 'unhealthyThreshold'), settingClamps.unhealthyThreshold),
    },
  }
}
