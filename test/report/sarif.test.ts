import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {renderSarif} from '../../src/report/sarif.js'
import {assertValidSarif} from './sarif-schema.js'
import {codeDocumentation, codePageMarkdown, codePageText} from '../../src/report/descriptions.js'
import {mixedProblems, sampleCwd, samplePages, sampleReport} from './sample-reports.js'

describe('renderSarif', () => {
  const log = JSON.parse(renderSarif([sampleReport(mixedProblems)], {toolVersion: '0.1.0', cwd: sampleCwd}))
  const run = log.runs[0]

  it('is valid against the official SARIF 2.1.0 schema', () => {
    assertValidSarif(log)
  })

  it('is checked by a schema that does reject a broken log (level "fatal", no message)', () => {
    const broken = structuredClone(log)
    broken.runs[0].results[0].level = 'fatal'
    delete broken.runs[0].results[1].message
    assert.throws(
      () => assertValidSarif(broken),
      (error: Error) => error.message.includes('"/runs/0/results/0/level"') && error.message.includes('"missingProperty": "message"'),
    )
  })

  it('is a clean report with no results, still valid SARIF', () => {
    const empty = JSON.parse(renderSarif([sampleReport([])], {toolVersion: '0.1.0', cwd: sampleCwd}))
    assertValidSarif(empty)
    assert.deepEqual(empty.runs[0].results, [])
    assert.deepEqual(empty.runs[0].tool.driver.rules, [])
  })

  it('has one run whose driver is svc-plugin with the tool version', () => {
    assert.equal(log.version, '2.1.0')
    assert.equal(log.runs.length, 1)
    assert.equal(run.tool.driver.name, 'svc-plugin')
    assert.equal(run.tool.driver.version, '0.1.0')
  })

  it('lists one rule per code that appears, in order of first appearance', () => {
    const withRepeat = JSON.parse(renderSarif([sampleReport([...mixedProblems, mixedProblems[1]!])], {toolVersion: '0.1.0', cwd: sampleCwd}))
    const rules = withRepeat.runs[0].tool.driver.rules
    assert.deepEqual(
      rules.map((rule: {id: string}) => rule.id),
      ['publication-metadata-missing', 'invalid-plugin-id', 'unknown-permission', 'schema:type'],
    )
    for (const rule of rules) assert.ok(rule.shortDescription.text.length > 0)
    assert.deepEqual(
      withRepeat.runs[0].results.map((result: {ruleIndex: number}) => result.ruleIndex),
      [0, 1, 2, 3, 1],
    )
  })

  it('maps severities to error, warning and note', () => {
    assert.deepEqual(
      run.results.map((result: {level: string}) => result.level),
      ['error', 'error', 'warning', 'note'],
    )
  })

  it('locates a result in the manifest by relative URI, line and column', () => {
    const result = run.results[1]
    assert.equal(result.ruleId, 'invalid-plugin-id')
    assert.equal(result.message.text, 'The id "Com.Example" is not a reverse-domain id.')
    assert.deepEqual(result.locations[0].physicalLocation, {
      artifactLocation: {uri: 'weather/manifest.json', uriBaseId: '%SRCROOT%'},
      region: {startLine: 3, startColumn: 9},
    })
  })

  it('carries the JSON pointer in properties and as a logical location, and requiredBy in properties', () => {
    assert.deepEqual(run.results[0].properties, {pointer: '', requiredBy: 'publication'})
    assert.deepEqual(run.results[0].locations[0].logicalLocations, [{fullyQualifiedName: '', kind: 'value'}])
    assert.deepEqual(run.results[2].properties, {pointer: '/permissions/1'})
  })

  it('leaves out the region and logical location when position and pointer are unknown', () => {
    const result = run.results[3]
    assert.deepEqual(result.locations[0], {physicalLocation: {artifactLocation: {uri: 'weather/manifest.json', uriBaseId: '%SRCROOT%'}}})
    assert.deepEqual(result.properties, {pointer: null})
  })

  it('locates a problem inside an artifact at the artifact file, percent-encoded, the inner path in the message', () => {
    const artifact = 'my plugin/weather-1.0.0.svcPlugin'
    const report = sampleReport(mixedProblems, {file: `${artifact}!manifest.json`, subject: {kind: 'artifact', path: artifact}})
    const artifactLog = JSON.parse(renderSarif([report], {toolVersion: '0.1.0', cwd: sampleCwd}))
    assertValidSarif(artifactLog)
    const result = artifactLog.runs[0].results[1]
    assert.deepEqual(result.locations[0].physicalLocation, {artifactLocation: {uri: 'my%20plugin/weather-1.0.0.svcPlugin', uriBaseId: '%SRCROOT%'}})
    assert.equal(result.message.text, 'manifest.json:3 (inside the artifact): The id "Com.Example" is not a reverse-domain id.')
    assert.equal(result.properties.innerPath, 'manifest.json')
  })

  it('makes URIs relative to the repository root, which it names as %SRCROOT%', () => {
    const fromSubfolder = JSON.parse(renderSarif([sampleReport(mixedProblems)], {toolVersion: '0.1.0', cwd: `${sampleCwd}/weather`, root: '/work'}))
    assertValidSarif(fromSubfolder)
    assert.deepEqual(fromSubfolder.runs[0].originalUriBaseIds, {'%SRCROOT%': {uri: 'file:///work/'}})
    assert.deepEqual(fromSubfolder.runs[0].results[0].locations[0].physicalLocation.artifactLocation, {uri: 'plugins/weather/manifest.json', uriBaseId: '%SRCROOT%'})
  })

  it('gives every rule descriptions, markdown help and a link to its page where the pages are published', () => {
    const linked = JSON.parse(renderSarif([sampleReport(mixedProblems)], {toolVersion: '1.2.3', cwd: sampleCwd, codePages: samplePages}))
    assertValidSarif(linked)
    assert.equal(linked.runs[0].tool.driver.informationUri, `${samplePages}README.md`)
    for (const rule of linked.runs[0].tool.driver.rules) {
      assert.ok(rule.shortDescription.text.length > 0 && rule.fullDescription.text.length > rule.shortDescription.text.length)
      assert.match(rule.help.markdown, /\*\*Fix:\*\*/)
      assert.equal(rule.helpUri, `${samplePages}${rule.id.replace(':', '-')}.md`)
    }
  })

  it('carries each page as the rule help, with no link, where no published page is known', () => {
    assert.equal(run.tool.driver.informationUri, undefined)
    for (const rule of run.tool.driver.rules) {
      assert.equal(rule.helpUri, undefined)
      assert.equal(rule.help.markdown, codePageMarkdown(rule.id))
      assert.equal(rule.help.text, codePageText(rule.id))
      assert.ok(rule.help.markdown.startsWith(`# \`${rule.id}\`\n\n${codeDocumentation(rule.id).summary}\n`))
      assert.match(rule.help.markdown, /\n## Example\n\n\S[\s\S]*\n## How to fix it\n\n\S/)
      assert.doesNotMatch(JSON.stringify(rule), /https?:/)
    }
  })

  it('still prints a valid log when a subject cannot be read: a notification, executionSuccessful false', () => {
    const error = Object.assign(new Error('missing does not exist.'), {code: 'file-not-found'})
    const failed = JSON.parse(renderSarif([{path: 'missing', code: 'file-not-found', message: error.message, error}], {toolVersion: '0.1.0', cwd: sampleCwd}))
    assertValidSarif(failed)
    const invocation = failed.runs[0].invocations[0]
    assert.equal(invocation.executionSuccessful, false)
    assert.equal(invocation.toolExecutionNotifications[0].descriptor.id, 'file-not-found')
    assert.equal(invocation.toolExecutionNotifications[0].message.text, 'missing does not exist.')
    assert.deepEqual(failed.runs[0].results, [])
  })

  it('uses a file: URL for a manifest outside the working directory', () => {
    const outside = JSON.parse(renderSarif([sampleReport(mixedProblems)], {toolVersion: '0.1.0', cwd: '/elsewhere'}))
    assertValidSarif(outside)
    assert.equal(outside.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, 'file:///work/plugins/weather/manifest.json')
  })
})
