/**
 * How the secret scan reads a file as text: the encodings editors and shells write (UTF-8 with or without a
 * byte order mark, UTF-16 little- or big-endian with one, as Windows PowerShell 5.1 writes for `>`), whatever
 * the line ends.
 */

/** How many leading bytes decide that a file without a byte order mark is binary. */
const binaryProbeBytes = 8192

/**
 * A file that holds text: its UTF-8 bytes (a byte order mark left out), or its decoded text (a file written in
 * UTF-16 is decoded at once). Every ASCII character of UTF-8 text is its one byte and no other byte reads as an ASCII character,
 * so ASCII is looked for in the bytes themselves, without decoding them.
 */
export type FileText = {kind: 'utf-8'; bytes: Buffer} | {kind: 'text'; text: string}

/**
 * A file as text, or null for a binary file. A byte order mark decides the encoding; without one the file is
 * UTF-8, unless a NUL byte among its first 8 KiB says it is binary.
 */
export function readText(bytes: Uint8Array): FileText | null {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view[0] === 0xef && view[1] === 0xbb && view[2] === 0xbf) return {kind: 'utf-8', bytes: view.subarray(3)}
  const even = view.length - (view.length % 2)
  if (view[0] === 0xff && view[1] === 0xfe) return {kind: 'text', text: view.toString('utf16le', 2, even)}
  if (view[0] === 0xfe && view[1] === 0xff) return {kind: 'text', text: Buffer.from(view.subarray(2, even)).swap16().toString('utf16le')}
  return view.subarray(0, binaryProbeBytes).includes(0) ? null : {kind: 'utf-8', bytes: view}
}

/** The text of a file; bytes that are not valid in its encoding read as U+FFFD, so the rest is still read. */
export function textOf(file: FileText): string {
  return file.kind === 'utf-8' ? file.bytes.toString('utf8') : file.text
}

/** Whether a file's text holds `ascii` (an ASCII string). */
export function includesAscii(file: FileText, ascii: string): boolean {
  return file.kind === 'utf-8' ? file.bytes.includes(ascii, 0, 'latin1') : file.text.includes(ascii)
}
