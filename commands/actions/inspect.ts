import {artifactDigestOf, formatMiB, inspect, type Inspection, type SignatureFacts} from '../../src/index.js'
import {ExitCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'

/** The arguments and flags of `svc-plugin inspect`, as parsed (by oclif, or by the direct path). */
export interface InspectInput {
  readonly args: {readonly subject: string}
  readonly flags: {readonly 'show-digest': boolean; readonly json: boolean}
}

/** `svc-plugin inspect`: describes an artifact or a plugin folder without judging it. */
export async function inspectCommand({args: {subject}, flags}: InspectInput, {output}: ActionContext): Promise<ExitCode> {
  const inspection = await inspect(subject)
  const digest = flags['show-digest'] && inspection.subject.kind === 'artifact' ? await artifactDigestOf(subject) : null
  if (flags.json) {
    output.outJson(digest ? {...inspection, artifactDigest: `sha256:${digest.sha256}`, artifactDigestText: digest.text} : inspection)
    return ExitCode.success
  }
  output.out(renderInspection(inspection))
  if (digest) output.out(`${'digest:'.padEnd(16)}sha256:${digest.sha256}`)
  return ExitCode.success
}

/** The text form of an inspection: one fact per line, lists indented (the output escapes every value). */
export function renderInspection(value: Inspection): string[] {
  const lines: string[] = []
  const field = (label: string, text: unknown) => lines.push(`${`${label}:`.padEnd(16)}${text === null || text === undefined ? '-' : String(text)}`)
  field('id', value.id)
  field('version', value.version)
  field('name', value.name)
  field('description', value.description)
  lines.push('entrypoints:')
  if (value.entrypoints.length === 0) lines.push('  (none)')
  for (const entry of value.entrypoints) {
    const runtime = entry.runtime.dotnetVersion === undefined ? entry.runtime.kind : `${entry.runtime.kind} ${String(entry.runtime.dotnetVersion)}`
    const args = entry.arguments.length > 0 ? ` ${entry.arguments.map((arg) => JSON.stringify(arg)).join(' ')}` : ''
    lines.push(`  ${entry.rid.padEnd(14)}${String(entry.executable)}${args} [${runtime}] ${entry.present ? 'present' : 'MISSING'}`)
  }
  field('permissions', value.permissions.map((p) => (p.known ? p.name : `${p.name} (unknown)`)).join(', ') || '(none)')
  field('languages', value.languages.join(', ') || '(none)')
  field('dependencies', references(value.dependencies))
  field('conflicts', references(value.conflicts))
  field('icon packs', references(value.iconPacks))
  field('compatibility', value.compatibility === null ? '(none)' : JSON.stringify(value.compatibility))
  field('signature', signatureText(value.signature))
  field('entries', value.entries)
  field('uncompressed', formatMiB(value.uncompressedBytes))
  if (value.archiveBytes !== null) {
    field('archive', formatMiB(value.archiveBytes))
    field('ratio', `${value.compressionRatio?.toFixed(2)}`)
  }
  return lines
}

/** `ed25519 by cert_… (certificate cert_…), signed 2024-05-06T07:08:09Z; well-formed, not verified`, or `not signed`. */
function signatureText(signature: SignatureFacts | null): string {
  if (signature === null) return 'not signed'
  const shape = {'well-formed': 'well-formed, not verified (svc-plugin verify checks it)', 'unrecognized-algorithm': 'an algorithm nothing here can verify', 'invalid-length': 'not a 64-byte Ed25519 value'}[signature.shape]
  const certificate = signature.certificateId === null ? 'no certificate' : `certificate ${signature.certificateId}`
  return `${signature.algorithm ?? '?'} by ${signature.keyId ?? '?'} (${certificate}), signed ${signature.signedAt ?? '?'}; ${shape}`
}

function references(list: unknown[]): string {
  if (list.length === 0) return '(none)'
  return list
    .map((item) => {
      const ref = (item ?? {}) as {id?: unknown; versionRange?: unknown; optional?: unknown}
      return `${String(ref.id)} ${ref.versionRange === undefined ? '*' : String(ref.versionRange)}${ref.optional === true ? ' (optional)' : ''}`
    })
    .join(', ')
}
