import {shellCommand} from '../model/shell-command.js'
import {ArchiveError} from './errors.js'

/**
 * Archives made by other tools that the strict reader refuses, told apart by what the refusal says, so that
 * the message names the likely cause and what to do. The code stays the reader's (an `./` entry is
 * `unsafe-entry` wherever it is met); the advice is added to the message and `details.foreign` names the cause.
 */
export type ForeignArchiveCause = 'dot-slash-names' | 'backslash-names' | 'zip64' | 'macos-resource-forks' | 'nested-folder'

const packAdvice = 'Make the artifact with svc-plugin pack <plugin folder>, which writes what every host reads.'

const advice: {readonly [cause in ForeignArchiveCause]: string} = {
  'dot-slash-names': `Its entry names start with "./", as bsdtar (tar -a -cf x.zip ./) writes them when given "." as the folder. ${packAdvice}`,
  'backslash-names': `Its entry names use "\\" as the separator, as older Windows archivers (PowerShell 5 Compress-Archive, .NET Framework's ZipFile) write them. ${packAdvice}`,
  zip64: `It uses ZIP64 records, which some archivers (Python's zipfile with force_zip64, streaming zip tools) write even for small files; a .svcPlugin never needs them. ${packAdvice}`,
  'macos-resource-forks': `It holds __MACOSX/ entries, the resource forks macOS Finder's "Compress" adds; they are no part of a plugin. ${packAdvice}`,
  'nested-folder': 'the plugin folder was zipped itself, one level too deep: manifest.json must be at the root of the archive.',
}

/** The likely cause of a refusal of the strict reader, or null when nothing points at another tool. */
export function foreignCauseOf(error: ArchiveError): ForeignArchiveCause | null {
  const {reason, entry, local, central} = error.details
  if (reason === 'zip64') return 'zip64'
  // A ZIP64 local header defers its sizes to an extra field: 0xffffffff where the central directory has the real size.
  if (reason === 'local-header-size-mismatch' && local === 0xffffffff && central !== 0xffffffff) return 'zip64'
  if (typeof entry !== 'string') return null
  if (reason === 'dot-segment' && entry.startsWith('./')) return 'dot-slash-names'
  if (reason === 'backslash') return 'backslash-names'
  if (entry.startsWith('__MACOSX/')) return 'macos-resource-forks'
  return null
}

/**
 * The same refusal with the advice for an archive made by another tool added to its message (and
 * `details.foreign`); any other error is returned as it is.
 */
export function adviseForeignArchive(error: unknown): unknown {
  if (!(error instanceof ArchiveError) || error.details.foreign !== undefined) return error
  const cause = foreignCauseOf(error)
  if (cause === null) return error
  return new ArchiveError(error.code, `${error.message} ${advice[cause]}`, {...error.details, foreign: cause}, {cause: error})
}

/**
 * What to add to "the artifact has no manifest.json at its root", from the archive's entry names: the
 * folder zipped one level too deep ("found plugin/manifest.json"), with Finder's resource forks beside it.
 * Empty when the names point at nothing.
 */
export function missingManifestAdvice(names: Iterable<string>): string {
  const all = [...names]
  const nested = all.find((name) => /^[^/]+\/manifest\.json$/.test(name) && !name.startsWith('__MACOSX/'))
  if (nested === undefined) return ''
  const folder = nested.slice(0, -'/manifest.json'.length)
  const forks = all.some((name) => name.startsWith('__MACOSX/')) ? ` ${advice['macos-resource-forks'].split('. ')[0]}.` : ''
  // The folder's name comes from the archive: the suggested command quotes it, or is not suggested.
  const command = shellCommand(['svc-plugin', 'pack'], [folder])
  const inside = JSON.stringify(`${folder}/`)
  return ` Found ${JSON.stringify(nested)}: ${advice['nested-folder']}${forks} Run ${command ?? 'svc-plugin pack'} on the folder (or zip what is inside ${inside}, not ${inside} itself).`
}

/** What to add to an entry the manifest's files[] does not list, when the entry is one of Finder's resource forks. */
export function undeclaredEntryAdvice(name: string): string {
  return name.startsWith('__MACOSX/') ? ` ${advice['macos-resource-forks']}` : ''
}
