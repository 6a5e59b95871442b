/** The known permission vocabulary, in its documented order. Anything else is `unknown-permission` (a warning). */
export const knownPermissions = [
  'host:variables',
  'host:user-variables',
  'host:config',
  'host:deck',
  'host:scripts',
  'host:widgets',
  'host:notifications',
  'host:action-interactions',
  'host:devices',
  'host:variable-values',
  'host:layouts',
  'host:folder-views',
  'host:widget-types',
  'host:event-bindings',
  'host:screensavers',
  'events:publish',
  'assets:upload',
  'net:outbound',
  'fs:user-files',
  'process:spawn',
  'device:usb',
] as const

/** One permission of the known vocabulary. */
export type KnownPermission = (typeof knownPermissions)[number]

/** True when `s` is exactly (case-sensitively) one of `knownPermissions`. */
export function isKnownPermission(s: unknown): s is KnownPermission {
  return typeof s === 'string' && (knownPermissions as readonly string[]).includes(s)
}
