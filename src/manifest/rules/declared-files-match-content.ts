import type {Rule} from './types.js'
import {arrayItems, member, quote} from './values.js'

/** Archive entries that `files[]` never lists (DESIGN §7.2): the manifest itself and the signing material. */
const unlistedEntries = new Set(['certificate.json', 'certificate.sig', 'issuer.json', 'issuer.sig'])

/**
 * A declared `files[]` matches the real bytes (DESIGN §4.1): every listed file exists (`file-missing`)
 * with that size (`file-size-mismatch`) and digest (`file-digest-mismatch`, when the snapshot carries
 * digests); in an artifact, every file is listed (`undeclared-file`).
 */
export const declaredFilesMatchContent: Rule = {
  name: 'declared-files-match-content',
  codes: ['file-missing', 'file-size-mismatch', 'file-digest-mismatch', 'undeclared-file'],
  level: 'package',
  check({manifest, content, rejected, emit}) {
    if (content === undefined || !Array.isArray(member(manifest, 'files')) || rejected.has('/files')) return
    const reportedEntries = new Set<string>()
    for (const bad of rejected) {
      const entry = /^\/files\/\d+/.exec(bad)
      if (entry !== null) reportedEntries.add(entry[0])
    }
    const declared = new Set<string>()
    let everyEntryJudged = true
    for (const {value, index, pointer} of arrayItems(manifest, 'files')) {
      // An entry that is already reported is not compared again (one mistake, one diagnostic).
      if (reportedEntries.has(pointer)) {
        everyEntryJudged = false
        continue
      }
      const path = member(value, 'path') as string
      const size = member(value, 'size') as number
      const sha256 = member(value, 'sha256') as string
      declared.add(path)
      const actual = content.files.get(path)
      const where = `files[${index}] ${quote(path)}`
      if (actual === undefined) {
        emit({code: 'file-missing', requiredBy: 'package', pointer, message: `${where} is listed but not in the package; pack the plugin again.`})
      } else if (actual.size !== size) {
        emit({code: 'file-size-mismatch', requiredBy: 'package', pointer, message: `${where} is listed with ${size} bytes but has ${actual.size}; pack the plugin again.`})
      } else if (actual.sha256 !== undefined && actual.sha256 !== sha256) {
        emit({code: 'file-digest-mismatch', requiredBy: 'package', pointer, message: `${where} is listed with ${sha256} but its bytes hash to ${actual.sha256}; pack the plugin again.`})
      }
    }
    // Only an artifact must list everything; with an entry unreadable, "undeclared" would repeat its problem.
    if (content.kind !== 'artifact' || !everyEntryJudged) return
    for (const path of content.files.keys()) {
      if (declared.has(path) || unlistedEntries.has(path)) continue
      emit({code: 'undeclared-file', requiredBy: 'package', pointer: '/files', message: `${quote(path)} is in the package but not listed in files; pack the plugin again.`})
    }
  },
}
