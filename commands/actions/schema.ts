import {manifestSchemaText} from '#cli'
import {ExitCode} from '../exit-codes.js'
import {io} from '../io.js'

/** `svc-plugin schema`: prints the manifest schema, exactly the file's bytes (no newline added, no re-serialisation). */
export async function schemaCommand(): Promise<ExitCode> {
  io.stdout.write(manifestSchemaText())
  return ExitCode.success
}
