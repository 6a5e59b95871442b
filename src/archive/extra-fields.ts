import {ArchiveError} from './errors.js'
import {quoteName} from './path-policy.js'

/**
 * The extra fields an entry's headers may carry, central record and local header alike.
 *
 * A signature covers entry names and inflated contents, nothing else, so every other byte of an
 * artifact must be either a header field of fixed size or refused: an extra-field area is up to 64 KiB
 * of free-form space per header where unsigned bytes could ride inside a signed artifact, and could
 * make one signature fit endlessly many files. Only the fields that zip, bsdtar, 7-Zip and Windows
 * write are accepted, each exactly in its documented layout, at most once per header, and the area
 * must be nothing but those fields (no bytes left over after the last one):
 *
 * - 0x5455, Info-ZIP extended timestamp: a flags byte (bits 0–2: modification, access, creation
 *   time) and one 4-byte time for at most each flag set (the central copy usually holds only the first).
 * - 0x7875, Info-ZIP Unix owner: version 1, then a UID and a GID of at most 8 bytes each, each
 *   preceded by its size.
 * - 0x5855, Info-ZIP Unix (old): access and modification times, optionally a 2-byte UID and GID.
 * - 0x000a, NTFS times: 4 reserved zero bytes and one attribute, tag 1, of three 8-byte times.
 *
 * ZIP64 (0x0001) and the Info-ZIP Unicode path (0x7075, a second name) stay refused as unsupported;
 * so is every other id, known or not (zipalign's padding, Java's JAR marker, vendor fields).
 */
export function checkExtraFields(area: Buffer, name: string, where: 'central' | 'local'): void {
  // Most headers carry none: nothing to judge, no message to prepare.
  if (area.length === 0) return
  const header = where === 'central' ? `The central record of entry ${quoteName(name)}` : `The local header of entry ${quoteName(name)}`
  const seen = new Set<number>()
  let at = 0
  while (at < area.length) {
    if (area.length - at < 4) {
      throw new ArchiveError('archive-malformed', `${header} has ${area.length - at} bytes after its last extra field.`, {reason: 'extra-field-invalid', entry: name})
    }
    const id = area.readUInt16LE(at)
    const size = area.readUInt16LE(at + 2)
    if (at + 4 + size > area.length) {
      throw new ArchiveError('archive-malformed', `${header} has extra fields that overrun their declared length.`, {reason: 'extra-field-invalid', entry: name})
    }
    const body = area.subarray(at + 4, at + 4 + size)
    at += 4 + size
    if (id === extraZip64) {
      throw new ArchiveError('archive-unsupported', `${header} carries a ZIP64 extra field; ZIP64 archives are not accepted.`, {reason: 'zip64', entry: name})
    }
    if (id === extraUnicodePath) {
      throw new ArchiveError('archive-unsupported', `${header} carries an Info-ZIP Unicode-path extra field (0x7075), which gives the entry a second name.`, {
        reason: 'unicode-path-extra',
        entry: name,
      })
    }
    const layout = layouts.get(id)
    if (layout === undefined) {
      throw new ArchiveError('archive-unsupported', `${header} carries an extra field of kind ${hex16(id)}, which artifacts may not carry.`, {
        reason: 'extra-field-unknown',
        entry: name,
        id,
      })
    }
    if (seen.has(id)) {
      throw new ArchiveError('archive-malformed', `${header} carries the ${layout.what} extra field (${hex16(id)}) twice.`, {reason: 'extra-field-duplicate', entry: name, id})
    }
    seen.add(id)
    if (!layout.fits(body)) {
      throw new ArchiveError('archive-malformed', `${header} carries a ${size}-byte ${layout.what} extra field (${hex16(id)}) that does not follow its layout: ${layout.rule}.`, {
        reason: 'extra-field-layout',
        entry: name,
        id,
        size,
      })
    }
  }
}

const extraZip64 = 0x0001
const extraUnicodePath = 0x7075

interface Layout {
  what: string
  rule: string
  fits: (body: Buffer) => boolean
}

const layouts = new Map<number, Layout>([
  [
    0x5455,
    {
      what: 'extended timestamp',
      rule: 'a flags byte with only bits 0-2 set, then one 4-byte time for at most each bit set',
      fits: (body) => {
        if (body.length === 0 || (body.length - 1) % 4 !== 0) return false
        const flags = body[0]!
        return (flags & ~0x07) === 0 && (body.length - 1) / 4 <= bitCount(flags)
      },
    },
  ],
  [
    0x7875,
    {
      what: 'Unix owner',
      rule: 'version 1, then a UID and a GID of at most 8 bytes, each after its size byte',
      fits: (body) => {
        if (body.length < 3 || body[0] !== 1) return false
        const uidSize = body[1]!
        if (uidSize > 8 || body.length < 3 + uidSize) return false
        const gidSize = body[2 + uidSize]!
        return gidSize <= 8 && body.length === 3 + uidSize + gidSize
      },
    },
  ],
  [
    0x5855,
    {
      what: 'old Unix',
      rule: 'two 4-byte times, optionally followed by a 2-byte UID and GID (8 or 12 bytes)',
      fits: (body) => body.length === 8 || body.length === 12,
    },
  ],
  [
    0x000a,
    {
      what: 'NTFS times',
      rule: '4 reserved zero bytes, then attribute tag 1 of 24 bytes (32 bytes)',
      fits: (body) => body.length === 32 && body.readUInt32LE(0) === 0 && body.readUInt16LE(4) === 1 && body.readUInt16LE(6) === 24,
    },
  ],
])

function bitCount(value: number): number {
  let count = 0
  for (let bits = value; bits !== 0; bits &= bits - 1) count++
  return count
}

function hex16(value: number): string {
  return `0x${value.toString(16).padStart(4, '0')}`
}
