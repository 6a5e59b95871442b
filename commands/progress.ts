import {visibleText} from '../src/index.js'
import {io} from './io.js'
/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
export interface ProgressBar {
  update(done: number, total: number, detail: string): void
  finish(): void
}

const width = 28

/** Returns a bar for `label`, or one that draws nothing when stderr is not a TTY or `enabled` is false. */
export function progressBar(label: string, enabled: boolean): ProgressBar {
  if (!enabled || !io.stderr.isTTY) return {update() {}, finish() {}}
  let drawn = false
  let last = 0
  return {
    update(done, total, detail) {
      const now = Date.now()
      if (done < total && now - last < 80) return
      last = now
      const ratio = total === 0 ? 1 : Math.min(1, done / total)
      const filled = Math.round(ratio * width)
      // The bar draws with terminal controls of its own (carriage return, erase to the end of the line),
      // so it writes to stderr itself; its words are escaped as every text line is.
      io.stderr.write(`\r${visibleText(label)} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${visibleText(detail)}\x1b[K`)
      drawn = true
    },
    finish() {
      if (drawn) io.stderr.write('\r\x1b[K')
    },
  }
}


