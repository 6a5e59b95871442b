/** The largest manifest.json any reader accepts: 8 MiB, checked before a byte is parsed. A manifest is small metadata. */
export const maxManifestBytes = 8 * 1024 * 1024
