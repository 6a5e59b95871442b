import {Args, Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {artifactDigestOf, inspect, type Inspection} from '../src/index.js'

export default class Inspect extends BaseCommand<typeof Inspect> {
  static override summary = 'Describe an artifact or a plugin folder without judging it.'
  static override description = `Prints what a .svcPlugin (or a plugin folder) declares and holds: identity, entrypoints by RID and whether each executable is present, permissions (unknown ones marked), languages, dependencies, conflicts, icon packs, compatibility, the signature's shape (not verified: use svc-plugin verify), entry count, sizes and compression ratio.

Exit status: 0 whenever the manifest can be read, 1 when the archive is refused by the strict reader or the manifest cannot be read, 3 when the file does not exist or is not a ZIP.`

  static override examples = ['<%= config.bin %> inspect com.example.weather-station-1.4.2.svcPlugin', '<%= config.bin %> inspect ./plugin --json']

  static override args = {
    subject: Args.string({description: 'A .svcPlugin artifact or a plugin folder.', required: true}),
  }

  static override flags = {
    'show-digest': Flags.boolean({description: 'Also print the canonical artifact digest (reads every byte of an artifact).', default: false}),
  }

  async run(): Promise<void> {
    const inspection = await inspect(this.args.subject)
    const digest = this.flags['show-digest'] && inspection.subject.kind === 'artifact' ? await artifactDigestOf(this.args.subject) : null
    if (this.flags.json) {
      this.outJson(digest ? {...inspection, artifactDigest: `sha256:${digest.sha256}`, artifactDigestText: digest.text} : inspection)
      return
    }
    this.out(renderInspection(inspection))
    if (digest) this.out(`${'digest:'.padEnd(16)}sha256:${digest.sha256}`)
  }
}

/** The text form of an inspection: one fact per line, lists indented. */
export function renderInspection(value: Inspection): string {
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
  field('signature', value.signature)
  field('entries', value.entries)
  field('uncompressed', `${value.uncompressedBytes} bytes`)
  if (value.archiveBytes !== null) {
    field('archive', `${value.archiveBytes} bytes`)
    field('ratio', `${value.compressionRatio?.toFixed(2)}`)
  }
  return lines.join('\n')
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
