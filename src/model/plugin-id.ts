/**
 * The manifest format's reverse-domain id: lowercase letters, digits, hyphens and dots; at least two
 * dot-separated segments, each starting with a letter; hyphens only between letters or digits.
 */
export const pluginIdPattern: RegExp = /^[a-z][a-z0-9]*(-[a-z0-9]+)*(\.[a-z][a-z0-9]*(-[a-z0-9]+)*)+$/

/** Longest plugin id allowed (the manifest format's id length limit). */
export const maxPluginIdLength = 128

/**
 * True when `s` is a reverse-domain plugin id of at most 128 characters; the same rule
 * applies to `publisher.id` and every id in `dependencies`, `conflicts` and `iconPacks`.
 */
export function isPluginId(s: unknown): s is string {
  // Length first: the pattern then only ever runs on short input.
  return typeof s === 'string' && s.length <= maxPluginIdLength && pluginIdPattern.test(s)
}
