import {lstat} from 'node:fs/promises'
import path from 'node:path'
import {SvcPluginError} from '../errors.js'
import {outputTaken, withOutputs} from '../fs/output.js'
import {ignoreFileName} from '../artifact/package-files.js'
import {manifestSchemaPath} from '../manifest/schema.js'
import {validateManifest} from '../manifest/validate.js'
import {hostRid} from '../model/rid.js'

/** Why `initPlugin` wrote nothing: a value for the manifest that would not validate. */
export type InitErrorCode = 'invalid-argument'

/** Thrown by {@link initPlugin} for a value that would make the new manifest invalid; nothing is written. */
export class InitError extends SvcPluginError<InitErrorCode> {}

/** What the new plugin declares; every member has a default derived from the folder's name. */
export interface InitOptions {
  /** Default `com.example.<folder>`. */
  id?: string
  /** Default the folder's name in words (`weather-station` → `Weather Station`). */
  name?: string
  /** Default `0.1.0`. */
  version?: string
  /** The runtime identifier of the one entrypoint; default this machine's (`linux-x64`). */
  rid?: string
  /**
   * The entrypoint executable, relative to the plugin folder. Default `runtimes/<rid>/<folder>` (`.cmd` for
   * a Windows RID), where a placeholder is written for the build to replace.
   */
  entrypoint?: string
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
  /** The placeholder entrypoint written (relative to the folder), or null when `entrypoint` was given. */
  placeholder: string | null
}

/** What `.svcpluginignore` starts with. */
const ignoreText = `# Paths pack leaves out of the artifact, one pattern a line (the .gitignore syntax).
# manifest.json, *.svcPlugin, .git/ and operating-system files are always left out.
*.pdb
*.log
obj/
`

/**
 * Scaffolds a plugin folder that validates at development level: `manifest.json` (with `$schema` pointing
 * at the schema this package ships, as a path relative to the folder) and `.svcpluginignore`. Creates `dir`
 * when missing; never overwrites: when any of the files exists, nothing is written (`output-exists`).
 * A value that would make the manifest invalid is refused (`invalid-argument`, naming the problem).
 */
export async function initPlugin(dir: string, options: InitOptions = {}): Promise<InitResult> {
  const directory = path.resolve(dir)
  const words = path.basename(directory).toLowerCase().split(/[^a-z0-9]+/).filter((word) => word !== '')
  const slug = words.join('-').replace(/^[^a-z]+/, '') || 'plugin'
  const rid = options.rid ?? hostRid()
  const manifest = {
    $schema: path.relative(directory, manifestSchemaPath()).split(path.sep).join('/'),
    manifestVersion: 1,
    id: options.id ?? `com.example.${slug}`,
    name: options.name ?? (words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join(' ') || 'Plugin'),
    version: options.version ?? '0.1.0',
    entrypoints: {[rid]: {executable: options.entrypoint ?? `runtimes/${rid}/${slug}${isWindows(rid) ? '.exe' : ''}`}},
  }
  const placeholder = options.entrypoint === undefined ? manifest.entrypoints[rid]!.executable : null
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`
  const report = validateManifest(manifestText, {level: 'development', positions: false})
  const [problem] = report.problems.filter((item) => item.severity === 'error')
  if (problem !== undefined) {
    throw new InitError('invalid-argument', `The new manifest would not validate: ${problem.code}: ${problem.message} [${problem.pointer}]`, {
      details: {problem: {code: problem.code, pointer: problem.pointer}},
    })
  }
  const files: [file: string, text: string, mode: number][] = [
    [path.join(directory, 'manifest.json'), manifestText, 0o644],
    [path.join(directory, ignoreFileName), ignoreText, 0o644],
  ]
  if (placeholder !== null) files.push([path.join(directory, ...placeholder.split('/')), placeholderText(rid, manifest.name), 0o755])
  for (const [file] of files) {
    if (await lstat(file).then(() => true, () => false)) throw await outputTaken(file, 'init never overwrites. Choose another folder or remove it first')
  }
  const createdFolder = await withOutputs(async (outputs) => {
    const created = await outputs.folder(directory)
    for (const [file, text, mode] of files) {
      await outputs.folderOf(file)
      await outputs.newFile(file, text, mode)
    }
    return created
  })
  const written = files.map(([file]) => file)
  return {directory, id: manifest.id, version: manifest.version, files: written, createdFolder, placeholder}
}

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
