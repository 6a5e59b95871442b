/**
 * Byte offset where the first ill-formed UTF-8 sequence starts, or -1 when every byte is well-formed.
 * Follows the WHATWG decoder's definition (no overlong forms, no surrogates, nothing above U+10FFFF,
 * no truncated sequence), so it is -1 exactly when a fatal `TextDecoder('utf-8')` accepts the bytes.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i] as number
    if (lead < 0x80) {
      i += 1
      continue
    }
    let trailing: number
    // The first continuation byte's range is narrowed to exclude overlong forms and surrogates.
    let low = 0x80
    let high = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) {
      trailing = 1
    } else if (lead >= 0xe0 && lead <= 0xef) {
      trailing = 2
      if (lead === 0xe0) low = 0xa0
      if (lead === 0xed) high = 0x9f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      trailing = 3
      if (lead === 0xf0) low = 0x90
      if (lead === 0xf4) high = 0x8f
    } else {
      return i
    }
    for (let k = 1; k <= trailing; k++) {
      const next = bytes[i + k]
      if (next === undefined || next < low || next > high) return i
      low = 0x80
      high = 0xbf
    }
    i += trailing + 1
  }
  return -1
}
