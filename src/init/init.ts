import {lstat} from 'node:fs/promises'
import path from 'node:path'
import {InitError} from './errors.js'
import {assertFoldersWithin, outputTaken, withOutputs} from '../fs/output.js'
import {ignoreFileName} from '../artifact/package-files.js'
import {InputFileError, readInputFile} from '../fs/input.js'
import {plural} from '../quantities.js'
import {validateManifest} from '../manifest/validate.js'
import {hostRid} from '../model/rid.js'

/** What the new plugin declares; every member has a default derived from the folder's name. */
export interface InitOptions {
  /** Default `com.example.<folder>`. */
  id?: string
  /** Default the folder's name in words (`weather-station` → `Weather Station`). */
  name?: string
  /** Default `0.1.0`. */
  version?: string
  /** The publisher's name (`publisher.name`); default (and null) none. */
  publisher?: string | null
  /** The runtime identifiers with an entrypoint; default this machine's (`['linux-x64']`). */
  runtimes?: readonly string[]
  /**
   * The entrypoint executable of the one runtime, relative to the plugin folder. Default
   * `runtimes/<rid>/<folder>` (`.exe` for a Windows RID) for each runtime, where a placeholder is written
   * for the build to replace.
   */
  entrypoint?: string
}

/** The values {@link initPlugin} uses for what its options leave out, derived from the folder's name. */
export interface InitDefaults {
  id: string
  name: string
  version: string
  /** None by default. */
  publisher: string | null
  runtimes: string[]
}

/** What {@link initPlugin} wrote. */
export interface InitResult {
  /** The plugin folder. */
  directory: string
  id: string
  version: string
  /** Every file written, in order. */
  files: string[]
  /** The first folder created to hold the plugin, or null when the folder existed. */
  createdFolder: string | null
  /** The placeholder entrypoints written (relative to the folder), none when `entrypoint` was given. */
  placeholders: string[]
  /**
   * The manifest's `$schema`: the path from the folder to the schema in `node_modules/svc-plugin` of the
   * nearest project above it that depends on svc-plugin; null when no project does (see `schemaAdvice`).
   */
  schema: string | null
  /** When `schema` is null: how to add one (install svc-plugin as a development dependency, then the line). */
  schemaAdvice: string | null
}

/** What `.svcpluginignore` starts with. */
const ignoreText = `# Paths pack leaves out of the artifact, one pattern a line (the .gitignore syntax).
# manifest.json, *.svcPlugin, .git/ and operating-system files are always left out.
*.pdb
*.log
obj/
`

/** The defaults of {@link initPlugin} for folder `dir`: `weather-station` gives `com.example.weather-station`, "Weather Station". */
export function initDefaults(dir: string): InitDefaults {
  const words = folderWords(dir)
  const slug = words.join('-').replace(/^[^a-z]+/, '') || 'plugin'
  const name = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join(' ') || 'Plugin'
  return {id: `com.example.${slug}`, name, version: '0.1.0', publisher: null, runtimes: [hostRid()]}
}

/**
 * Scaffolds a plugin folder that validates at package level: `manifest.json`, `.svcpluginignore` and a
 * placeholder entrypoint per runtime. The manifest's `$schema` is the path to the schema of the nearest
 * project above the folder that depends on svc-plugin (`node_modules/svc-plugin/schema/…`), a path that
 * holds on every machine the project is checked out on; without one there is no `$schema`, and the result
 * says how to add it. Creates `dir` when missing; never overwrites: when any of the files exists, nothing
 * is written (`output-exists`). A value that would make the manifest invalid is refused
 * (`invalid-argument`, naming the problem).
 */
export async function initPlugin(dir: string, options: InitOptions = {}): Promise<InitResult> {
  if (dir === '') throw new InitError('invalid-argument', 'The folder to initialise is an empty path; name it (`.` for the current folder).', {details: {directory: dir}})
  const directory = path.resolve(dir)
  const defaults = initDefaults(directory)
  const runtimes = options.runtimes ?? defaults.runtimes
  if (options.entrypoint !== undefined && runtimes.length !== 1) {
    throw new InitError('invalid-argument', `An entrypoint is given for one runtime; ${plural(runtimes.length, 'runtime')} were asked for.`, {details: {runtimes}})
  }
  const slug = defaults.id.slice('com.example.'.length)
  const entrypoints = Object.fromEntries(runtimes.map((rid) => [rid, {executable: options.entrypoint ?? `runtimes/${rid}/${slug}${isWindows(rid) ? '.exe' : ''}`}]))
  const schema = await schemaPathFor(directory)
  const publisher = options.publisher ?? defaults.publisher
  const manifest = {
    ...(schema === null ? {} : {$schema: schema.path}),
    manifestVersion: 1,
    id: options.id ?? defaults.id,
    name: options.name ?? defaults.name,
    version: options.version ?? defaults.version,
    ...(publisher === null ? {} : {publisher: {name: publisher}}),
    entrypoints,
  }
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`
  refuseInvalid(manifestText)
  const placeholders = options.entrypoint === undefined ? runtimes.map((rid) => [rid, entrypoints[rid]!.executable] as const) : []
  const files: [file: string, text: string, mode: number][] = [
    [path.join(directory, 'manifest.json'), manifestText, 0o644],
    [path.join(directory, ignoreFileName), ignoreText, 0o644],
    ...placeholders.map(([rid, executable]) => [path.join(directory, ...executable.split('/')), placeholderText(rid, manifest.name), 0o755] as [string, string, number]),
  ]
  for (const [file] of files) {
    if (await lstat(file).then(() => true, () => false)) throw await outputTaken(file, 'init never overwrites. Choose another folder or remove it first')
    await assertFoldersWithin(directory, file)
  }
  const createdFolder = await withOutputs(async (outputs) => {
    const created = await outputs.folder(directory)
    for (const [file, text, mode] of files) {
      await outputs.folderOf(file)
      await outputs.newFile(file, text, mode)
    }
    return created
  })
  const schemaAdvice = schema === null ? `No project above ${directory} depends on svc-plugin, so the manifest has no "$schema". For an editor that completes and checks it: npm install --save-dev svc-plugin, then add "$schema": "${schemaPathFrom(directory, await nearestProject(directory) ?? directory)}" to manifest.json.` : null
  return {directory, id: manifest.id, version: manifest.version, files: files.map(([file]) => file), createdFolder, placeholders: placeholders.map(([, executable]) => executable), schema: schema?.path ?? null, schemaAdvice}
}

/** Throws `invalid-argument` with the first error of the new manifest at development level. */
function refuseInvalid(manifestText: string): void {
  const report = validateManifest(manifestText, {level: 'development', positions: false})
  const [problem] = report.problems.filter((item) => item.severity === 'error')
  if (problem !== undefined) {
    throw new InitError('invalid-argument', `The new manifest would not validate: ${problem.code}: ${problem.message} [${problem.pointer}]`, {
      details: {problem: {code: problem.code, pointer: problem.pointer}},
    })
  }
}

/** The lowercase words of a folder's name. */
function folderWords(dir: string): string[] {
  return path.basename(path.resolve(dir)).toLowerCase().split(/[^a-z0-9]+/).filter((word) => word !== '')
}

/** Where a project keeps the schema of its svc-plugin dependency, relative to the project. */
const installedSchema = ['node_modules', 'svc-plugin', 'schema', 'manifest.schema.json']

/** The `/`-separated path from `directory` to the schema of the svc-plugin that `project` installs. */
function schemaPathFrom(directory: string, project: string): string {
  return path.relative(directory, path.join(project, ...installedSchema)).split(path.sep).join('/')
}

/** The `$schema` for a plugin in `directory`: through the nearest project above it that depends on svc-plugin; null when none does. */
async function schemaPathFor(directory: string): Promise<{path: string; project: string} | null> {
  for (let folder = directory; ; folder = path.dirname(folder)) {
    if (await dependsOnSvcPlugin(path.join(folder, 'package.json'))) return {path: schemaPathFrom(directory, folder), project: folder}
    if (path.dirname(folder) === folder) return null
  }
}

/** The nearest folder at or above `directory` with a package.json, or null. */
async function nearestProject(directory: string): Promise<string | null> {
  for (let folder = directory; ; folder = path.dirname(folder)) {
    if ((await packageJsonOf(path.join(folder, 'package.json'))) !== undefined) return folder
    if (path.dirname(folder) === folder) return null
  }
}

/** True when the package.json `file` lists svc-plugin in its dependencies or devDependencies. */
async function dependsOnSvcPlugin(file: string): Promise<boolean> {
  const json = await packageJsonOf(file)
  if (json === undefined || json === null) return false
  return ['dependencies', 'devDependencies'].some((field) => {
    const listed = json[field]
    return typeof listed === 'object' && listed !== null && Object.hasOwn(listed, 'svc-plugin')
  })
}

/** The object in package.json `file`: undefined when there is no such file, null when it is not a JSON object. */
async function packageJsonOf(file: string): Promise<Record<string, unknown> | null | undefined> {
  let text: string
  try {
    text = (await readInputFile(file, {limit: maxPackageJsonBytes})).bytes.toString('utf8')
  } catch (error) {
    if (error instanceof InputFileError && error.code === 'file-not-found') return undefined
    return null
  }
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** A package.json larger than this is not read (no project's is). */
const maxPackageJsonBytes = 4 * 1024 * 1024

function isWindows(rid: string): boolean {
  return rid === 'win' || rid.startsWith('win-')
}

/**
 * What stands where the build output goes, so that the new folder validates: a script that says what it is
 * (on Windows RIDs, the same words as text: the build replaces the .exe).
 */
function placeholderText(rid: string, name: string): string {
  const line = `${name}: this is a placeholder; replace it with the plugin's build output for ${rid}.`.replaceAll("'", '')
  return isWindows(rid) ? `${line}\r\n` : `#!/bin/sh\necho '${line}' >&2\nexit 1\n`
}
