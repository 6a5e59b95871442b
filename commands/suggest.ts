/**
 * What a mistyped word most likely meant, for a command and for a flag alike: the one candidate within a
 * small edit distance of what was typed, when exactly one is closest.
 */

/**
 * The candidate closest to what was typed for it (compared without regard to case), when it is close
 * enough and no other is as close; each candidate is compared with its own `typed` (a topic command with as
 * many words of the command line as it has).
 */
export function closest(pairs: readonly {readonly candidate: string; readonly typed: string}[]): string | undefined {
  let best: string[] = []
  let bestDistance = Number.POSITIVE_INFINITY
  for (const {candidate, typed} of pairs) {
    const distance = editDistance(typed.toLowerCase(), candidate)
    if (distance > allowedDistance(candidate)) continue
    if (distance < bestDistance) [best, bestDistance] = [[candidate], distance]
    else if (distance === bestDistance) best.push(candidate)
  }
  return best.length === 1 ? best[0] : undefined
}

/** The one word of `candidates` closest to `typed`, when exactly one is close (see {@link closest}). */
export function closestWord(typed: string, candidates: Iterable<string>): string | undefined {
  return closest([...candidates].map((candidate) => ({candidate, typed})))
}

/** How far a typo may be from a word of this length (leading dashes not counted) and still count as close. */
function allowedDistance(word: string): number {
  return word.replace(/^-+/, '').length <= 4 ? 1 : 2
}

/** Edit distance counting insertions, deletions, substitutions and swaps of two neighbours as one each. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({length: a.length + 1}, (_, i) => Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = value
    }
  }
  return rows[a.length]![b.length]!
}
