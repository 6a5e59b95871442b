import type {FileDigest} from '../../model/manifest.js'
import {compareDeclaredFiles, fileProblemCodes} from '../declared-files.js'
import {isWithin} from '../../json/pointer.js'
import type {Rule} from './types.js'
import {arrayItems, hasMember} from './values.js'

/**
 * A declared `files[]` matches the real bytes: every listed file exists (`file-missing`) with that size
 * (`file-size-mismatch`) and digest (`file-digest-mismatch`, when the snapshot carries digests); in an
 * artifact or an installed version, every file is listed (`undeclared-file`), the signing files excepted
 * only when the manifest is signed.
 */
export const declaredFilesMatchContent: Rule = {
  name: 'declared-files-match-content',
  codes: fileProblemCodes,
  level: 'package',
  check({manifest, content, rejected, emit}) {
    if (content === undefined || !Array.isArray(manifest.files) || rejected.has('/files')) return
    // An entry that is already reported is not compared again (one mistake, one diagnostic); with one
    // left out, "undeclared" would repeat its problem.
    const items = arrayItems(manifest, 'files')
    const declared = items.map(({value, pointer}) => ([...rejected].some((bad) => isWithin(bad, pointer)) ? null : (value as FileDigest)))
    const everyEntryJudged = !declared.includes(null)
    const problems = compareDeclaredFiles(declared, content.files, {
      exhaustive: everyEntryJudged && content.kind !== 'directory',
      signed: hasMember(manifest, 'signature'),
    })
    for (const problem of problems) {
      const pointer = problem.index === null ? '/files' : items[problem.index]!.pointer
      emit({code: problem.code, requiredBy: 'package', pointer, message: `${problem.message} Pack the plugin again.`})
    }
  },
}
