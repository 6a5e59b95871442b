import {stat} from 'node:fs/promises'
import path from 'node:path'
import {ArchiveError} from '../archive/errors.js'
import {SvcPluginError} from '../errors.js'
import {inputError, readInputFile} from '../fs/input.js'
import {shellCommand} from '../model/shell-command.js'

/**
 * What a path given to a command is, told by its content rather than its name: a folder, a `.svcPlugin`
 * artifact (a file that begins with a ZIP signature), a manifest (a file whose text begins with `{`, after
 * an optional byte order mark and white space), or another file. Every command that takes a path asks
 * {@link classifyInput} when the path is not of the kind it takes, so that it can say what was given and
 * which command or flag takes that.
 */
export type InputKind = 'folder' | 'artifact' | 'manifest' | 'file'

/** The kinds of input a command takes. */
export type ExpectedInput = 'folder' | 'artifact' | 'manifest'

/** Why a path is not of the kind a command takes (besides `not-an-artifact`, the archive reader's code). */
export type InputKindErrorCode = 'not-a-manifest' | 'not-a-folder'

/** Thrown when a path is of another kind than the command takes; `details`: `path`, `found`, `expected`. */
export class InputKindError extends SvcPluginError<InputKindErrorCode> {}

const zipSignatures = [Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from([0x50, 0x4b, 0x05, 0x06])]
/** What may come before a manifest's `{`: byte order marks (UTF-8, UTF-16) and JSON white space. */
const beforeObject = /^(?:\xef\xbb\xbf|\xfe\xff|\xff\xfe)?[\t\n\r ]*/

/**
 * The kind of `absolute`, named `given` in messages. Throws `InputFileError` when it does not exist
 * (`file-not-found`), is neither a folder nor a regular file (`not-a-regular-file`: a FIFO is never
 * opened) or cannot be read (`unreadable`).
 */
export async function classifyInput(absolute: string, given: string): Promise<InputKind> {
  const stats = await stat(absolute).catch((error: unknown) => {
    throw inputError(given, error)
  })
  if (stats.isDirectory()) return 'folder'
  const {bytes} = await readInputFile(absolute, {limit: 64}).catch((error: unknown) => {
    throw inputError(given, error)
  })
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (zipSignatures.some((signature) => head.subarray(0, 4).equals(signature))) return 'artifact'
  const text = head.toString('latin1')
  // UTF-16 text has a NUL beside each ASCII character: read every other byte after its mark.
  const ascii = text.startsWith('\xfe\xff') || text.startsWith('\xff\xfe') ? text.slice(2).replaceAll('\0', '') : text
  return ascii.replace(beforeObject, '').startsWith('{') ? 'manifest' : 'file'
}

const described: Record<InputKind, string> = {
  folder: 'a folder',
  artifact: 'a .svcPlugin artifact (a ZIP file)',
  manifest: 'a manifest (JSON text)',
  file: 'a file',
}
const wanted: Record<ExpectedInput, string> = {folder: 'a plugin folder', artifact: 'a .svcPlugin artifact', manifest: 'a manifest file'}

/**
 * The refusal of `given`, found to be `found` where `expected` belongs: `not-an-artifact` (an
 * ArchiveError, as the archive reader refuses), `not-a-manifest` or `not-a-folder`, saying what it is
 * and then `advice` (which command or flag takes it).
 */
export function wrongInput(given: string, found: InputKind, expected: ExpectedInput, advice: string): ArchiveError | InputKindError {
  const message = `${given} is ${described[found]}, not ${wanted[expected]}.${advice === '' ? '' : ` ${advice}`}`
  const details = {path: given, found, expected}
  if (expected === 'artifact') return new ArchiveError('not-an-artifact', message, {reason: found === 'folder' ? 'not-a-file' : 'no-end-record', ...details})
  return new InputKindError(expected === 'folder' ? 'not-a-folder' : 'not-a-manifest', message, {details})
}

/**
 * What takes a `found` input, as advice for a command that takes artifacts: a folder is packed or
 * validated, a manifest validated (its folder packed); nothing for another file.
 */
export function artifactAdvice(given: string, found: InputKind): string {
  if (found === 'folder') return joined('Pack it with', ['pack'], given, 'or check it as it is with', ['validate'], given)
  if (found === 'manifest') return joined('Check it with', ['validate'], given, 'or pack the folder that holds it with', ['pack'], path.dirname(given))
  return ''
}

/** `<lead> <command a>, <middle> <command b>.`, each command quoted for a shell; empty when one cannot be printed as is. */
function joined(lead: string, first: readonly string[], firstOperand: string, middle: string, second: readonly string[], secondOperand: string): string {
  const a = suggestion(first, firstOperand)
  const b = suggestion(second, secondOperand)
  return a === null || b === null ? '' : `${lead} ${a}, ${middle} ${b}.`
}

/** `svc-plugin <words> <operand>`, quoted for a shell, or null when the operand cannot be shown as itself. */
export function suggestion(words: readonly string[], operand: string): string | null {
  return shellCommand(['svc-plugin', ...words], [operand])
}
