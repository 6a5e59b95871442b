/**
 * How a count or a size is written for people, everywhere the toolchain writes one: a count with its noun
 * (`1 plugin`, `2 plugins`, never `plugin(s)`), and a size in one unit, MiB. Exact byte counts are given
 * only where the count itself is the point (a file listed with 1,024 bytes that has 1,025).
 */

/** `1 warning`, `2 warnings`, `0 entries`: a count and its noun, singular only for one; `nouns` for an irregular plural. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`
}

const mebibyte = 1024 * 1024

/**
 * A size in MiB, the one unit of sizes in human output: exactly when four decimals or fewer say it (`8 MiB`,
 * `0.0625 MiB` for 64 KiB), otherwise with two decimals (`12.35 MiB`), or as many as it takes not to read
 * as a whole number (`512.000001 MiB` for one byte over 512 MiB); a size below 0.01 MiB that no four
 * decimals say is `<0.01 MiB`.
 */
export function formatMiB(bytes: number): string {
  const mib = bytes / mebibyte
  if (Number(mib.toFixed(4)) === mib) return `${mib} MiB`
  if (mib < 0.01) return '<0.01 MiB'
  for (let decimals = 2; decimals <= 12; decimals++) {
    const shown = Number(mib.toFixed(decimals))
    if (!Number.isInteger(shown)) return `${shown} MiB`
  }
  return `${mib} MiB`
}
