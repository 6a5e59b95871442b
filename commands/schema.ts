import {schemaCommand} from './actions/schema.js'
import {BaseCommand} from './base.js'

export default class Schema extends BaseCommand<typeof Schema> {
  static override summary = 'Print the manifest JSON schema.'
  static override description = `Prints schema/manifest.schema.json (JSON Schema draft 2020-12) byte for byte on stdout, for editors and other validators. Every property carries x-svc-requirement: runtime, publication, recommended or generated. Validating with this schema alone is not the whole check: svc-plugin validate adds the rules a schema cannot express.`

  static override examples = [
    {description: 'Save the schema beside a plugin.', command: '<%= config.bin %> schema > manifest.schema.json'},
  ]

  async run(): Promise<void> {
    this.setExit(await schemaCommand({}, this.context))
  }
}
