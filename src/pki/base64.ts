const base64Shape = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * Decodes standard, padded base64 (RFC 4648 §4) only in its canonical form: no whitespace, no
 * URL-safe alphabet, unused bits zero. One byte string has one accepted text, so two verifiers can
 * never disagree about which bytes a base64 field holds. `null` for anything else or a wrong length.
 */
export function decodeBase64(text: string, expectedLength?: number): Uint8Array | null {
  if (!base64Shape.test(text)) return null
  const bytes = Buffer.from(text, 'base64')
  if (bytes.toString('base64') !== text) return null
  if (expectedLength !== undefined && bytes.length !== expectedLength) return null
  return new Uint8Array(bytes)
}

/** Standard padded base64 of `bytes`. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}

/**
 * Decodes a base64 text file (a key, `certificate.sig`): the canonical base64 of `expectedLength`
 * bytes, optionally followed by one `\n` (a text file's last line). `null` for anything else.
 */
export function decodeBase64Line(bytes: Uint8Array, expectedLength?: number): Uint8Array | null {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
  if (text.endsWith('\n')) text = text.slice(0, -1)
  return decodeBase64(text, expectedLength)
}

/** The text of a base64 file: one line, then `\n`. */
export function base64Line(bytes: Uint8Array): string {
  return `${encodeBase64(bytes)}\n`
}
