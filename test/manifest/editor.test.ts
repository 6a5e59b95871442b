import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath, pathToFileURL} from 'node:url'
import languageService from 'vscode-json-languageservice'
import {knownPermissions} from '../../src/model/permissions.js'
import {repoRoot} from '../helpers/cli.js'

// The JSON language service VS Code itself runs: what an author sees in the editor, not what we hope.
const {ClientCapabilities, getLanguageService, TextDocument} = languageService
const service = getLanguageService({
  // VS Code shows markdown documentation.
  clientCapabilities: ClientCapabilities.LATEST,
  schemaRequestService: async (uri) => readFileSync(fileURLToPath(uri), 'utf8'),
  workspaceContext: {resolveRelativePath: (relative, resource) => new URL(relative, resource).href},
})
service.configure({validate: true, allowComments: false})

/** A document beside the fixtures, so that its `$schema` (../../schema/manifest.schema.json) resolves as in an editor. */
function documentOf(text: string, name = 'editing.json'): languageService.TextDocument {
  return TextDocument.create(pathToFileURL(path.join(repoRoot, 'fixtures', 'example-plugin', name)).href, 'json', 1, text)
}

async function diagnosticsOf(fixture: string): Promise<Array<{line: number; message: string}>> {
  const file = path.join(repoRoot, 'fixtures', fixture, 'manifest.json')
  const document = TextDocument.create(pathToFileURL(file).href, 'json', 1, readFileSync(file, 'utf8'))
  const diagnostics = await service.doValidation(document, service.parseJSONDocument(document))
  return diagnostics.map((diagnostic) => ({line: diagnostic.range.start.line + 1, message: String(diagnostic.message)}))
}

/** The completion labels at the `|` of `text` (the marker is removed). */
async function completionsAt(text: string): Promise<Array<{label: string; insertText: string | undefined}>> {
  const offset = text.indexOf('|')
  const document = documentOf(text.replace('|', ''))
  const list = await service.doComplete(document, document.positionAt(offset), service.parseJSONDocument(document))
  return (list?.items ?? []).map((item) => ({label: item.label, insertText: item.insertText}))
}

const header = '{\n  "$schema": "../../schema/manifest.schema.json",\n'

describe('the manifest schema in the editor (vscode-json-languageservice)', () => {
  it('shows no problem in the example plugin', async () => {
    assert.deepEqual(await diagnosticsOf('example-plugin'), [])
  })

  it('shows the broken plugin its schema problems in readable words, never a regular expression', async () => {
    assert.deepEqual(await diagnosticsOf('broken-plugin'), [
      {line: 6, message: 'Expected a SemVer 2.0 version: MAJOR.MINOR.PATCH with optional -pre-release and +build parts, no leading v (e.g. 1.0.0).'},
      {line: 17, message: 'Expected an absolute http or https URL (e.g. https://example.com).'},
      {line: 30, message: 'Array has duplicate items.'},
    ])
  })

  it('accepts an unknown permission (svc-plugin validate only warns about it)', async () => {
    const messages = (await diagnosticsOf('broken-plugin')).map((diagnostic) => diagnostic.message).join('\n')
    assert.doesNotMatch(messages, /coffee|permission/i)
  })

  it('offers every known permission, in order', async () => {
    const items = await completionsAt(`${header}  "permissions": [|]\n}\n`)
    assert.deepEqual(
      items.map((item) => item.label),
      knownPermissions.map((permission) => JSON.stringify(permission)),
    )
  })

  it('offers common runtime identifiers as entrypoints keys', async () => {
    const labels = (await completionsAt(`${header}  "entrypoints": {\n    |\n  }\n}\n`)).map((item) => item.label)
    for (const rid of ['win-x64', 'linux-x64', 'linux-arm64', 'osx-arm64']) assert.ok(labels.includes(rid), `${rid} not offered: ${labels.join(', ')}`)
  })

  it('fills in the defaults of health, shutdown and the runtime kind', async () => {
    const health = await completionsAt(`${header}  "health": {\n    |\n  }\n}\n`)
    assert.deepEqual(
      health.map((item) => item.insertText),
      ['"path": "${1:/_svc/health}"', '"intervalSeconds": ${1:15}', '"timeoutSeconds": ${1:2}', '"unhealthyThreshold": ${1:3}'],
    )
    const shutdown = await completionsAt(`${header}  "shutdown": {\n    |\n  }\n}\n`)
    assert.deepEqual(
      shutdown.map((item) => item.insertText),
      ['"gracefulTimeoutSeconds": ${1:10}'],
    )
    const kinds = await completionsAt(`${header}  "entrypoints": {"linux-x64": {"executable": "x", "runtime": {"kind": |}}}\n}\n`)
    assert.deepEqual(
      kinds.map((item) => item.label),
      ['"SelfContained"', '"FrameworkDependent"'],
    )
  })

  it('does not suggest the generated files and signature, and documents members in markdown', async () => {
    const document = documentOf(`${header}  \n}\n`)
    const list = await service.doComplete(document, {line: 2, character: 2}, service.parseJSONDocument(document))
    const labels = list!.items.map((item) => item.label)
    assert.ok(labels.includes('entrypoints') && labels.includes('permissions') && labels.includes('health'))
    assert.equal(labels.includes('files'), false)
    assert.equal(labels.includes('signature'), false)
    const license = list!.items.find((item) => item.label === 'license')!
    assert.deepEqual(license.documentation, {
      kind: 'markdown',
      value: 'License of the plugin, an SPDX expression by convention; carried verbatim, never parsed.\n\nNeeded for publication (`--level publication`).',
    })
  })
})
