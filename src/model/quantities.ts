/**
 * How a count or a size is written for people, everywhere the toolchain writes one: a count with its noun
 * (`1 plugin`, `2 plugins`, never `plugin(s)`), and a size in one unit, MiB.
 */

/** `1 warning`, `2 warnings`, `0 entries`: a count and its noun, singular only for one; `nouns` for an irregular plural. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`
}

const mebibyte = 1024 * 1024

/**
 * A size in MiB, the one unit of sizes in human output: whole MiB as they are (`8 MiB`), other sizes with
 * two decimals (`12.35 MiB`), or three significant digits below 0.01 MiB (`0.00118 MiB`), so that no
 * size but an empty one reads as `0`.
 */
export function formatMiB(bytes: number): string {
  const mib = bytes / mebibyte
  if (Number.isInteger(mib)) return `${mib} MiB`
  return `${mib >= 0.01 ? mib.toFixed(2) : Number(mib.toPrecision(3)).toString()} MiB`
}
