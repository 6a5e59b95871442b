/**
 * Finds every occurrence of a set of ASCII keywords in a text in one pass, ignoring ASCII case: an
 * Aho-Corasick automaton compiled to a table of transitions, one step per character.
 */

/** Characters the automaton has transitions for; any other character leads back to the start. */
const alphabet = 128
/** log2 of {@link alphabet}: a row offset shifted right by it is the state number. */
const rowShift = 7

/** A compiled set of keywords (see {@link KeywordScan.scan}). */
export class KeywordScan {
  /**
   * `next[row + character]`: the row of the state after reading an ASCII character, a state's row being its
   * number times {@link alphabet}. Upper-case letters lead where their lower-case letters do.
   */
  readonly #next: Int32Array
  /** Non-zero for a state where some keyword ends (indexed by state number). */
  readonly #terminal: Uint8Array
  /** For each state, the keywords (their indices) that end there, longest first. */
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
    const next = new Int32Array(goto.length * alphabet)
    // Breadth first: a state's fallback (the longest proper suffix of its text that is a state) is done before it.
    const fallback = new Int32Array(goto.length)
    const queue: number[] = []
    for (let code = 0; code < alphabet; code++) {
      const target = goto[0]!.get(code) ?? 0
      next[code] = target
      if (target !== 0) queue.push(target)
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!
      ends[state]!.push(...ends[fallback[state]!]!)
      for (let code = 0; code < alphabet; code++) {
        const target = goto[state]!.get(code)
        if (target === undefined) {
          next[state * alphabet + code] = next[fallback[state]! * alphabet + code]!
        } else {
          fallback[target] = next[fallback[state]! * alphabet + code]!
          next[state * alphabet + code] = target
          queue.push(target)
        }
      }
    }
    // States as rows, and upper-case letters as their lower-case letters: the scan does no arithmetic.
    for (let state = 0; state < goto.length; state++) {
      const row = state * alphabet
      for (let code = 0; code < alphabet; code++) next[row + code] = next[row + code]! * alphabet
      for (let upper = 0x41; upper <= 0x5a; upper++) next[row + upper] = next[row + (upper | 0x20)]!
    }
    this.#next = next
    this.#terminal = Uint8Array.from(ends, (list) => (list.length > 0 ? 1 : 0))
    this.#ends = ends
    this.#lengths = Int32Array.from(keywords, (keyword) => keyword.length)
  }

  /**
   * Calls `found(keyword, start)` for every occurrence of a keyword in `input` (ASCII letters of either case),
   * in the order the occurrences end, until `found` returns true. `input` is a text, or bytes in an encoding
   * where every ASCII character is its own byte and no other byte is ASCII (UTF-8): offsets are then in bytes.
   */
  scan(input: string | Uint8Array, found: (keyword: number, start: number) => boolean): void {
    const next = this.#next
    const terminal = this.#terminal
    const length = input.length
    let row = 0
    // A character outside ASCII is in no keyword. Two loops, so that each reads its input one way.
    if (typeof input === 'string') {
      for (let index = 0; index < length; index++) {
        const code = input.charCodeAt(index)
        row = code < alphabet ? next[row + code]! : 0
        if (terminal[row >> rowShift] !== 0 && this.#report(row >> rowShift, index, found)) return
      }
    } else {
      for (let index = 0; index < length; index++) {
        const code = input[index]!
        row = code < alphabet ? next[row + code]! : 0
        if (terminal[row >> rowShift] !== 0 && this.#report(row >> rowShift, index, found)) return
      }
    }
  }

  #report(state: number, index: number, found: (keyword: number, start: number) => boolean): boolean {
    for (const keyword of this.#ends[state]!) if (found(keyword, index + 1 - this.#lengths[keyword]!)) return true
    return false
  }
}
