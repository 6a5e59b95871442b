/**
 * Where each code's page lives. The pages are `docs/codes/<code>.md` (a `schema:<keyword>` code as
 * `schema-<keyword>.md`: no colon in a file name), shipped in the npm package. A report links a page only
 * where package.json says where the package's sources are published ({@link codePagesBase}); without such
 * a place a link would not resolve, and the formats that can carry text (SARIF's rule help) carry the
 * page's text instead.
 */
export const codePagesFolder = 'docs/codes'

/** The file name of a code's page inside `docs/codes/`. */
export function codePageFile(code: string): string {
  return `${code.replace(':', '-')}.md`
}

/** What package.json says about the package: its version and where it lives. */
export interface PackageLinks {
  version: string
  homepage?: unknown
  repository?: unknown
}

/** A repository's address as `repository` may write it: a URL (`git+https://…`, `git@host:…`) or `host:owner/name`. */
const repositoryAddress = /^(?:git\+)?(?:(?:https?|git|ssh|git\+ssh):\/\/(?:[^@/]+@)?|[^@/:]+@)?(github\.com|gitlab\.com)[:/]([^#?]+?)(?:\.git)?\/?(?:[#?].*)?$/i
const shorthand = /^(?:(github|gitlab):)?([A-Za-z0-9_.-]+\/[A-Za-z0-9_.\/-]+)$/

/**
 * The web address of the folder holding this version's code pages (ending in `/`), or null when package.json
 * names no place that publishes them. The place is the repository on GitHub or GitLab (`repository`, as a
 * string, a shorthand such as `github:owner/name` or an object with `url` and `directory`; or a `homepage`
 * that is the repository's page), at the tag `v<version>` that `npm version` creates. Another homepage says
 * where the tool is described, not where its pages are, and gives no link.
 */
export function codePagesBase(links: PackageLinks): string | null {
  const repository = links.repository
  const url = typeof repository === 'string' ? repository : typeof repository === 'object' && repository !== null ? (repository as {url?: unknown}).url : undefined
  const directory = typeof repository === 'object' && repository !== null ? (repository as {directory?: unknown}).directory : undefined
  const place = (typeof url === 'string' ? repositoryPlace(url) : null) ?? (typeof links.homepage === 'string' ? repositoryPlace(links.homepage) : null)
  if (place === null || !/^[0-9A-Za-z.+-]+$/.test(links.version)) return null
  const folder = typeof directory === 'string' && /^[\w.-]+(?:\/[\w.-]+)*\/?$/.test(directory) && !directory.split('/').includes('..') ? `${directory.replace(/\/$/, '')}/` : ''
  const blob = place.host === 'github.com' ? 'blob' : '-/blob'
  return `https://${place.host}/${place.path}/${blob}/v${links.version}/${folder}${codePagesFolder}/`
}

/** The host and `owner/name` path of a GitHub or GitLab repository address, or null for anything else. */
function repositoryPlace(address: string): {host: 'github.com' | 'gitlab.com'; path: string} | null {
  const trimmed = address.trim()
  const short = shorthand.exec(trimmed)
  const match = short === null ? repositoryAddress.exec(trimmed) : null
  const host = short !== null ? (short[1]?.toLowerCase() === 'gitlab' ? 'gitlab.com' : 'github.com') : (match?.[1]?.toLowerCase() as 'github.com' | 'gitlab.com' | undefined)
  const path = (short?.[2] ?? match?.[2])?.replace(/\.git$/, '')
  if (host === undefined || path === undefined) return null
  const segments = path.split('/')
  // GitHub has owner/name; GitLab also nests groups. Either way, only plain segments.
  const plain = segments.every((segment) => /^[A-Za-z0-9_.-]+$/.test(segment) && segment !== '.' && segment !== '..')
  return plain && segments.length >= 2 && (host === 'gitlab.com' || segments.length === 2) ? {host, path} : null
}

/** The web address of a code's page under `base` (see {@link codePagesBase}). */
export function codeHelpUrl(code: string, base: string): string {
  return `${base}${codePageFile(code)}`
}
