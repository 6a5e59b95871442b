/**
 * Finds every occurrence of a set of ASCII keywords in a text in one pass, ignoring ASCII case: an
 * Aho-Corasick automaton compiled to a table of transitions, one step per character.
 */

/** The characters of a step: a byte, or a character of a text up to U+00FF (any other resets the scan, as any byte or character outside ASCII does). */
const alphabet = 256

/** A compiled set of keywords (see {@link KeywordScan.scan}). */
export class KeywordScan {
  /**
   * `next[row + character]`: the row of the state after reading a character, where a state's row is its
   * number times {@link alphabet} (kept that way, the scan adds a character to it: about a fifth faster than
   * multiplying on every step). States are numbered so that those where a keyword ends come last (from the
   * row {@link #firstEnding}): the scan tells them by one comparison. Upper-case letters lead where their
   * lower-case letters do; a character outside ASCII leads to the start.
   */
  readonly #next: Uint32Array
  readonly #firstEnding: number
  /** For each state, the keywords (their indices) that end there. */
  readonly #ends: readonly (readonly number[])[]
  readonly #lengths: Int32Array

  /** Compiles `keywords` (ASCII; matched case-insensitively). */
  constructor(keywords: readonly string[]) {
    // The trie of the lower-cased keywords, a row of 128 transitions per state (0: none; the start, state 0, is
    // never a child), completed in place below into the automaton's transitions. Typed arrays, not maps: the
    // automaton is built on every run that scans text, so building it must cost next to nothing.
    let capacity = 1
    for (const keyword of keywords) {
      if (!/^[\x00-\x7f]+$/.test(keyword)) throw new RangeError(`A keyword must be ASCII and not empty: ${JSON.stringify(keyword)}`)
      capacity += keyword.length
    }
    const step = new Int32Array(capacity * 128)
    const ends: number[][] = [[]]
    // Each state's children in the trie, as pairs of a character and a state.
    const children: number[][] = [[]]
    let count = 1
    keywords.forEach((keyword, index) => {
      let state = 0
      for (const character of keyword.toLowerCase()) {
        const code = character.charCodeAt(0)
        const slot = state * 128 + code
        if (step[slot] === 0) {
          step[slot] = count++
          children[state]!.push(code, step[slot]!)
          ends.push([])
          children.push([])
        }
        state = step[slot]!
      }
      ends[state]!.push(index)
    })
    if (count > 0xffff) throw new RangeError('Too many keywords for one scan.')
    // Breadth first: a state's fallback (the longest proper suffix of its text that is a state) is done before
    // it. A state reads what its fallback reads, except where it has a child.
    const fallback = new Int32Array(count)
    const queue = children[0]!.filter((_, index) => index % 2 === 1)
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!
      const row = state * 128
      const fallbackRow = fallback[state]! * 128
      ends[state]!.push(...ends[fallback[state]!]!)
      step.copyWithin(row, fallbackRow, fallbackRow + 128)
      const own = children[state]!
      for (let index = 0; index < own.length; index += 2) {
        const target = own[index + 1]!
        fallback[target] = step[row + own[index]!]!
        step[row + own[index]!] = target
        queue.push(target)
      }
    }
    // Renumber: the start (no keyword is empty, so none ends there) and the other states first, then those where keywords end.
    const order = [...Array(count).keys()].sort((a, b) => Number(ends[a]!.length > 0) - Number(ends[b]!.length > 0) || a - b)
    const number = new Int32Array(count)
    order.forEach((state, index) => (number[state] = index))
    const next = new Uint32Array(count * alphabet)
    for (let state = 0; state < count; state++) {
      const row = number[state]! * alphabet
      const from = state * 128
      for (let code = 0; code < 128; code++) next[row + code] = number[step[from + code]!]! * alphabet
      next.copyWithin(row + 0x41, row + 0x61, row + 0x7b)
    }
    this.#next = next
    const firstEnding = order.findIndex((state) => ends[state]!.length > 0)
    this.#firstEnding = (firstEnding === -1 ? count : firstEnding) * alphabet
    this.#ends = order.map((state) => ends[state]!)
    this.#lengths = Int32Array.from(keywords, (keyword) => keyword.length)
  }

  /**
   * Calls `found(keyword, start)` for every occurrence of a keyword in `input` (ASCII letters of either case),
   * in the order the occurrences end, until `found` returns true. `input` is a text, or bytes in an encoding
   * where every ASCII character is its own byte and no other byte is ASCII (UTF-8): offsets are then in bytes.
   */
  scan(input: string | Uint8Array, found: (keyword: number, start: number) => boolean): void {
    const next = this.#next
    const firstEnding = this.#firstEnding
    const length = input.length
    // The row of the current state.
    let row = 0
    // Two loops, so that each reads its input one way.
    if (typeof input === 'string') {
      for (let index = 0; index < length; index++) {
        const code = input.charCodeAt(index)
        row = code < alphabet ? next[row + code]! : 0
        if (row >= firstEnding && this.#report(row, index, found)) return
      }
    } else {
      for (let index = 0; index < length; index++) {
        row = next[row + input[index]!]!
        if (row >= firstEnding && this.#report(row, index, found)) return
      }
    }
  }

  #report(row: number, index: number, found: (keyword: number, start: number) => boolean): boolean {
    for (const keyword of this.#ends[row / alphabet]!) if (found(keyword, index + 1 - this.#lengths[keyword]!)) return true
    return false
  }
}
