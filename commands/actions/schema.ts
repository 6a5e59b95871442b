import {manifestSchemaText} from '#cli'
import {ExitCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'

/** `svc-plugin schema`: prints the manifest schema, exactly the file's bytes (no newline added, no re-serialisation). */
export async function schemaCommand(_input: unknown, {output}: ActionContext): Promise<ExitCode> {
  output.outDocument(manifestSchemaText())
  return ExitCode.success
}
