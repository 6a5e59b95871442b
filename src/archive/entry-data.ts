import zlib from 'node:zlib'
import {hex32} from './entry-stream.js'
import {ArchiveError} from './errors.js'
import {quoteName} from './path-policy.js'

/**
 * Room for unsigned bytes in an entry's data. A signature covers entry names and inflated contents;
 * every compressed byte must therefore be needed to produce those contents, or a signed artifact
 * could carry payload nobody signed, and one signature would fit endlessly many files.
 *
 * File entries: their data is streamed and checked against the headers whenever it is read (exact
 * size, CRC-32, a deflate stream that ends exactly at the compressed size). A deflate stream can
 * still be padded with blocks that produce nothing (empty stored blocks carry 5 spare bits each,
 * dynamic Huffman tables more), so the declared compressed size of a deflated entry is also capped
 * at zlib's own worst case for any compression settings ({@link maxDeflatedSize}): an encoder that
 * never falls back to stored blocks stays under it, padding beyond it is refused.
 *
 * Directory entries: they are not handed out and their data is never streamed, so a directory entry
 * declaring deflate, 0 bytes and CRC-32 0 could carry any number of unsigned bytes that nothing
 * would ever inflate. The rule: a directory entry carries no data. Uncompressed size 0 and CRC-32 0;
 * stored with compressed size 0, or deflated (Java and .NET write the 2-byte empty stream) with at
 * most {@link maxDeflatedSize}(0) = 5 compressed bytes, which must be a deflate stream producing
 * nothing and ending exactly at the compressed size: checked when the archive is opened, with the
 * local headers ({@link DirectoryDataCheck}).
 */
export function checkDeclaredData(record: {name: string; method: 0 | 8; crc32: number; compressedSize: number; uncompressedSize: number}, isDirectory: boolean): void {
  const {name, method, compressedSize, uncompressedSize} = record
  if (isDirectory && (uncompressedSize !== 0 || (method === 0 && compressedSize !== 0) || compressedSize > maxDeflatedSize(0))) {
    const declared = uncompressedSize === 0 ? `${compressedSize} compressed bytes` : `${uncompressedSize} bytes of content`
    throw new ArchiveError('archive-malformed', `Directory entry ${quoteName(name)} declares ${declared}; a directory entry carries no data.`, {
      reason: 'directory-entry-with-data',
      entry: name,
      compressedSize,
      uncompressedSize,
    })
  }
  if (isDirectory && record.crc32 !== 0) {
    throw new ArchiveError('archive-malformed', `Directory entry ${quoteName(name)} declares CRC-32 ${hex32(record.crc32)}; a directory entry carries no data, whose CRC-32 is 0.`, {
      reason: 'crc-mismatch',
      entry: name,
      declared: record.crc32,
      actual: 0,
    })
  }
  if (method === 8 && compressedSize > maxDeflatedSize(uncompressedSize)) {
    throw new ArchiveError(
      'archive-malformed',
      `Entry ${quoteName(name)} declares ${compressedSize} compressed bytes for ${uncompressedSize} bytes of content; deflate never needs more than ${maxDeflatedSize(uncompressedSize)}.`,
      {reason: 'deflate-expansion', entry: name, compressedSize, uncompressedSize, limit: maxDeflatedSize(uncompressedSize)},
    )
  }
}

/**
 * The most compressed bytes a deflate stream of `size` bytes of content needs: zlib's bound for any
 * compression settings (`deflateBound` without the zlib wrapper), which also covers an encoder that
 * codes incompressible data with fixed Huffman codes (9 bits a byte) or flushes stored blocks.
 */
export function maxDeflatedSize(size: number): number {
  return size + Math.ceil(size / 8) + Math.ceil(size / 64) + 5
}

/**
 * Proves that a deflated directory entry's few bytes (see {@link checkDeclaredData}) are a deflate
 * stream that produces nothing and ends exactly at the compressed size. One instance serves one
 * archive and remembers the verdict for each distinct byte string: a writer gives every directory the
 * same two bytes, and starting an inflater costs far more than reading them.
 */
export class DirectoryDataCheck {
  readonly #verdicts = new Map<string, 'empty' | 'data' | 'trailing' | 'short' | 'invalid'>()

  check(name: string, data: Buffer): void {
    const key = data.toString('latin1')
    let verdict = this.#verdicts.get(key)
    if (verdict === undefined) {
      verdict = inflatedVerdict(data)
      this.#verdicts.set(key, verdict)
    }
    if (verdict === 'empty') return
    if (verdict === 'data') {
      throw new ArchiveError('archive-malformed', `Directory entry ${quoteName(name)} inflates to data; a directory entry carries none.`, {reason: 'directory-entry-with-data', entry: name})
    }
    const what = {
      trailing: `its ${data.length} compressed bytes hold more than an empty deflate stream`,
      short: `its ${data.length} compressed bytes are a deflate stream cut short`,
      invalid: `its ${data.length} compressed bytes are not a deflate stream`,
    }[verdict]
    throw new ArchiveError('archive-malformed', `Directory entry ${quoteName(name)}: ${what}.`, {
      reason: verdict === 'invalid' ? 'deflate-invalid' : 'deflate-length-mismatch',
      entry: name,
    })
  }
}

/** What inflating `data` (at most a few bytes) gives: nothing, ending exactly at its last byte, or how it fails. */
function inflatedVerdict(data: Buffer): 'empty' | 'data' | 'trailing' | 'short' | 'invalid' {
  let inflated: {buffer: Buffer; engine: {bytesWritten: number}}
  try {
    // `info` hands back the engine, whose bytesWritten is the compressed bytes the stream consumed.
    inflated = zlib.inflateRawSync(data, {info: true, maxOutputLength: 1} as zlib.ZlibOptions) as unknown as typeof inflated
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ERR_BUFFER_TOO_LARGE' ? 'data' : code === 'Z_BUF_ERROR' ? 'short' : 'invalid'
  }
  if (inflated.buffer.length > 0) return 'data'
  return inflated.engine.bytesWritten === data.length ? 'empty' : 'trailing'
}
