/**
 * Where each code's page lives. The pages are `docs/codes/<code>.md` (a `schema:<keyword>` code as
 * `schema-<keyword>.md`: no colon in a file name), shipped in the npm package; a link names the package
 * version that printed it, so that it always shows the page of the code as that version meant it.
 */
export const codePagesFolder = 'docs/codes'

/** The published package's files, by version: the base of every help link. */
const packageFilesBase = 'https://unpkg.com/svc-plugin@'

/** The file name of a code's page inside `docs/codes/`. */
export function codePageFile(code: string): string {
  return `${code.replace(':', '-')}.md`
}

/** The web address of a code's page in the published package of `toolVersion`. */
export function codeHelpUrl(code: string, toolVersion: string): string {
  return `${packageFilesBase}${toolVersion}/${codePagesFolder}/${codePageFile(code)}`
}
