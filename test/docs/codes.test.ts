import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {errorCodes} from '../../commands/exit-codes.js'
import {codePages} from '../../scripts/docs-codes.js'
import {diagnosticCodes} from '../../src/manifest/diagnostic.js'
import {installWarningCodes} from '../../src/install/warnings.js'
import {fileProblemCodes} from '../../src/model/file-problems.js'
import {chainProblemCodes} from '../../src/pki/chain.js'
import {tooManyWarnings} from '../../src/report/warning-limit.js'
import {verifyCodes} from '../../src/signing/result.js'
import {manifestSchema} from '../../src/manifest/schema.js'
import {documentedCodes} from '../../src/report/descriptions.js'
import {codePageFile} from '../../src/report/help.js'
import {repoRoot} from '../helpers/cli.js'

const folder = path.join(repoRoot, 'docs', 'codes')
/** The codes only `verifyInstalled` gives (its problems' code is a string: see InstalledProblem). */
const installedProblemCodes = ['unexpected-file-type', 'trust-downgrade', 'unsigned-not-permitted', 'trust-record-missing', 'certificate-changed', 'unexpected-mode', 'directory-writable-by-others']
const pages = codePages()

/** The validation keywords the manifest schema uses anywhere (each can fail as `schema:<keyword>`). */
function schemaKeywords(): Set<string> {
  const annotations = new Set(['$schema', '$id', '$ref', '$defs', 'title', 'description', 'markdownDescription', 'examples', 'default', 'x-svc-requirement', 'doNotSuggest', 'patternErrorMessage', 'errorMessage', 'defaultSnippets', 'properties', 'items', 'additionalProperties', 'propertyNames', 'anyOf'])
  const found = new Set<string>()
  const walk = (value: unknown, inProperties: boolean): void => {
    if (Array.isArray(value)) return value.forEach((item) => walk(item, false))
    if (typeof value !== 'object' || value === null) return
    for (const [key, child] of Object.entries(value)) {
      if (!inProperties && !annotations.has(key)) found.add(key)
      walk(child, !inProperties && (key === 'properties' || key === '$defs'))
    }
  }
  walk(manifestSchema, false)
  return found
}

describe('docs/codes', () => {
  it('has a page for every code any module can emit: diagnostics, errors, verification, chain and upload problems, install warnings, installed-version problems, the run\'s own outcomes and every schema keyword the schema uses', () => {
    const documented = new Set(documentedCodes())
    const wanted = [
      ...diagnosticCodes,
      ...errorCodes,
      ...verifyCodes,
      ...chainProblemCodes,
      ...installWarningCodes,
      ...fileProblemCodes,
      'version-not-newer',
      tooManyWarnings,
      ...installedProblemCodes,
      ...[...schemaKeywords()].map((keyword) => `schema:${keyword}`),
    ]
    const missing = wanted.filter((code) => !documented.has(code) || !pages.has(codePageFile(code)))
    assert.deepEqual(missing, [])
    for (const code of documented) {
      const page = pages.get(codePageFile(code))!
      assert.match(page, /\n## Example\n\n\S/, code)
      assert.match(page, /\n## How to fix it\n\n\S/, code)
    }
  })

  it('holds exactly the generated pages, none stale: run npm run docs:codes after changing the table', () => {
    assert.deepEqual(readdirSync(folder).sort(), [...pages.keys()].sort())
    const stale = [...pages].filter(([name, text]) => readFileSync(path.join(folder, name), 'utf8') !== text).map(([name]) => name)
    assert.deepEqual(stale, [])
  })

  it('names a page for a schema keyword without a colon', () => {
    assert.equal(codePageFile('schema:pattern'), 'schema-pattern.md')
    assert.ok(pages.get('schema-pattern.md')!.startsWith('# `schema:pattern`\n'))
  })
})
