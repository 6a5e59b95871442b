/** Every warning an install can return; warnings never fail an install. */
export const installWarningCodes = [
  'no-file-digests',
  'no-entrypoint-for-runtime',
  'unknown-permission',
  'sdk-compatibility-unchecked',
  'svc-compatibility-unchecked',
  'dependency-missing',
  'dependency-out-of-range',
  'conflict-installed',
  'icon-pack-unresolved',
  'artifact-unsigned',
  'container-unsigned',
] as const

/** One install warning code. */
export type InstallWarningCode = (typeof installWarningCodes)[number]

/** Something a host should know about an installed plugin; `blocking` ones keep it from starting on its own. */
export interface InstallWarning {
  code: InstallWarningCode
  message: string
  /** True when the plugin must not be started automatically because of this. */
  blocking: boolean
}

/** A warning. */
export function warning(code: InstallWarningCode, message: string, blocking = false): InstallWarning {
  return {code, message, blocking}
}
