/** Where a command writes: a stream with `write`, and whether it is a terminal. */
export interface Output {
  write(text: string): unknown
  readonly isTTY?: boolean
}

/**
 * The two channels of every command: results on stdout, everything else on stderr. Commands write only
 * through these, so that a caller running commands in its own process (the test suite) can take what they
 * write without touching the process's own streams.
 */
export const io: {stdout: Output; stderr: Output} = {stdout: process.stdout, stderr: process.stderr}
