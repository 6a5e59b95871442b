/**
 * Finds every occurrence of a set of ASCII keywords in a text in one pass, ignoring ASCII case: an
 * Aho-Corasick automaton compiled to a table of transitions, one step per character.
 */

/** The characters of a step: a byte, or a character of a text up to U+00FF (any other resets the scan, as any byte or character outside ASCII does). */
const alphabet = 256

/** A compiled set of keywords (see {@link KeywordScan.scan}). */
export class KeywordScan {
  /**
   * `next[state * alphabet + character]`: the state after reading a character. States are numbered so that
   * those where a keyword ends come last (from {@link #firstEnding}): the scan tells them by one comparison.
   * Upper-case letters lead where their lower-case letters do; a character outside ASCII leads to the start.
   */
  readonly #next: Uint16Array
  readonly #firstEnding: number
  /** For each state, the keywords (their indices) that end there. */
  readonly #ends: readonly (readonly number[])[]
  readonly #lengths: Int32Array

  /** Compiles `keywords` (ASCII; matched case-insensitively). */
  constructor(keywords: readonly string[]) {
    const goto: Map<number, number>[] = [new Map()]
    const ends: number[][] = [[]]
    keywords.forEach((keyword, index) => {
      if (!/^[\x00-\x7f]+$/.test(keyword)) throw new RangeError(`A keyword must be ASCII and not empty: ${JSON.stringify(keyword)}`)
      let state = 0
      for (const character of keyword.toLowerCase()) {
        const code = character.charCodeAt(0)
        let target = goto[state]!.get(code)
        if (target === undefined) {
          target = goto.length
          goto.push(new Map())
          ends.push([])
          goto[state]!.set(code, target)
        }
        state = target
      }
      ends[state]!.push(index)
    })
    const count = goto.length
    if (count > 0xffff) throw new RangeError('Too many keywords for one scan.')
    const step = new Int32Array(count * 128)
    // Breadth first: a state's fallback (the longest proper suffix of its text that is a state) is done before it.
    const fallback = new Int32Array(count)
    const queue: number[] = []
    for (let code = 0; code < 128; code++) {
      const target = goto[0]!.get(code) ?? 0
      step[code] = target
      if (target !== 0) queue.push(target)
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!
      ends[state]!.push(...ends[fallback[state]!]!)
      for (let code = 0; code < 128; code++) {
        const target = goto[state]!.get(code)
        if (target === undefined) {
          step[state * 128 + code] = step[fallback[state]! * 128 + code]!
        } else {
          fallback[target] = step[fallback[state]! * 128 + code]!
          step[state * 128 + code] = target
          queue.push(target)
        }
      }
    }
    // Renumber: the start (no keyword is empty, so none ends there) and the other states first, then those where keywords end.
    const order = [...Array(count).keys()].sort((a, b) => Number(ends[a]!.length > 0) - Number(ends[b]!.length > 0) || a - b)
    const number = new Int32Array(count)
    order.forEach((state, index) => (number[state] = index))
    this.#next = new Uint16Array(count * alphabet)
    for (const state of order) {
      const row = number[state]! * alphabet
      for (let code = 0; code < 128; code++) this.#next[row + code] = number[step[state * 128 + code]!]!
      for (let upper = 0x41; upper <= 0x5a; upper++) this.#next[row + upper] = this.#next[row + (upper | 0x20)]!
    }
    this.#firstEnding = order.findIndex((state) => ends[state]!.length > 0)
    if (this.#firstEnding === -1) this.#firstEnding = count
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
    let state = 0
    // Two loops, so that each reads its input one way.
    if (typeof input === 'string') {
      for (let index = 0; index < length; index++) {
        const code = input.charCodeAt(index)
        state = code < alphabet ? next[state * alphabet + code]! : 0
        if (state >= firstEnding && this.#report(state, index, found)) return
      }
    } else {
      for (let index = 0; index < length; index++) {
        state = next[state * alphabet + input[index]!]!
        if (state >= firstEnding && this.#report(state, index, found)) return
      }
    }
  }

  #report(state: number, index: number, found: (keyword: number, start: number) => boolean): boolean {
    for (const keyword of this.#ends[state]!) if (found(keyword, index + 1 - this.#lengths[keyword]!)) return true
    return false
  }
}
