import {digestWholeEntry, hex32} from './entry-stream.js'
import {ArchiveError, isArchiveError} from './errors.js'
import {quoteName} from './path-policy.js'
import type {ArchiveEntry} from './types.js'

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
 * Directory entries: they are not handed out and their data is never streamed, so the rule is
 * enforced when the archive is opened. A directory entry carries no data: uncompressed size 0 and
 * CRC-32 0, stored with compressed size 0, or deflated (Java and .NET write the 2-byte empty
 * stream) with at most {@link maxDeflatedSize}(0) = 5 compressed bytes that must be a deflate
 * stream producing nothing and ending exactly at the compressed size.
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
 * Proves that every deflated directory entry's few bytes are an empty deflate stream that ends
 * exactly at its compressed size (see {@link checkDeclaredData}); `dataStarts` holds each record's
 * data offset, in record order.
 */
export async function checkDirectoryData(fd: number, records: readonly {name: string; method: 0 | 8; compressedSize: number; entry: ArchiveEntry | null}[], dataStarts: readonly number[]): Promise<void> {
  for (const [index, record] of records.entries()) {
    if (record.entry !== null || record.compressedSize === 0) continue
    const empty: ArchiveEntry = {name: record.name, method: record.method, compressedSize: record.compressedSize, uncompressedSize: 0, crc32: 0, mode: 0}
    try {
      await digestWholeEntry(fd, empty, dataStarts[index]!)
    } catch (error) {
      if (isArchiveError(error) && error.details.reason === 'entry-larger-than-declared') {
        throw new ArchiveError('archive-malformed', `Directory entry ${quoteName(record.name)} inflates to data; a directory entry carries none.`, {
          reason: 'directory-entry-with-data',
          entry: record.name,
        }, {cause: error})
      }
      throw error
    }
  }
}

