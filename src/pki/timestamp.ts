/**
 * The one timestamp format of the signing layer: `YYYY-MM-DDTHH:MM:SSZ`, RFC 3339 in UTC with
 * whole seconds (certificate times and `signedAt`). Fractions, offsets and lower-case
 * `t`/`z` are refused so that every verifier reads the same instant from the same text.
 */
const timestampShape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

/** Milliseconds since the epoch of a timestamp in the signing format, or null (including impossible dates such as February 30). */
export function parseTimestamp(text: unknown): number | null {
  if (typeof text !== 'string' || !timestampShape.test(text)) return null
  const ms = Date.parse(text)
  // Round trip: Date.parse rolls 2024-02-30 over to March; the canonical text must come back unchanged.
  if (Number.isNaN(ms) || formatTimestamp(new Date(ms)) !== text) return null
  return ms
}

/** `date` in the signing format, truncated to the second. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** True when `text` is a timestamp in the signing format. */
export function isTimestamp(text: unknown): text is string {
  return parseTimestamp(text) !== null
}

/** How far a signing time (`signedAt`, a countersignature's `countersignedAt`) may lie ahead of the verifier's clock. */
export const maxClockSkewMs = 5 * 60 * 1000
