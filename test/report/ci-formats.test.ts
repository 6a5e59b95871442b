import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {Ajv} from 'ajv'
import {XMLParser, XMLValidator} from 'fast-xml-parser'
import {renderGitlab} from '../../src/report/gitlab.js'
import {renderStepSummary} from '../../src/report/github.js'
import {renderJunit} from '../../src/report/junit.js'
import type {SubjectResult} from '../../src/manifest/report.js'
import {repoRoot} from '../helpers/cli.js'
import {mixedProblems, sampleCwd, samplePages, sampleReport} from './sample-reports.js'

const missing = Object.assign(new Error('plugins/gone does not exist.'), {code: 'file-not-found'})
const subjects: SubjectResult[] = [
  sampleReport(mixedProblems),
  sampleReport([], {pluginId: 'com.example.clock', version: '2.0.0', file: `${sampleCwd}/clock/manifest.json`, subject: {kind: 'manifest', path: `${sampleCwd}/clock/manifest.json`}}),
  {path: 'plugins/gone', code: 'file-not-found', message: missing.message, error: missing},
]

describe('renderJunit', () => {
  const xml = renderJunit(subjects, {cwd: sampleCwd})
  const parsed = new XMLParser({ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'failure', 'property'].includes(name)}).parse(xml)

  it('is well-formed XML to the parser CI tools use', () => {
    assert.equal(XMLValidator.validate(xml), true)
  })

  it('has one test suite per subject, named by its path, with the plugin id, version and level as properties', () => {
    const suites = parsed.testsuites.testsuite
    assert.deepEqual(
      suites.map((suite: {name: string}) => suite.name),
      ['weather/manifest.json', 'clock/manifest.json', 'plugins/gone'],
    )
    assert.deepEqual(
      suites[0].properties.property.map((property: {name: string; value: string}) => [property.name, property.value]),
      [
        ['id', 'com.example.weather-station'],
        ['version', '1.4.2'],
        ['level', 'development'],
      ],
    )
  })

  it('has one test case per problem, an error failing it with its one failure (type = code), a warning or a note passing with its line in system-out', () => {
    const [weather, clock, gone] = parsed.testsuites.testsuite
    assert.deepEqual(
      weather.testcase.map((testcase: {name: string}) => testcase.name),
      ['publication-metadata-missing at /', 'invalid-plugin-id at /id', 'unknown-permission at /permissions/1', 'schema:type'],
    )
    assert.deepEqual(
      weather.testcase.map((testcase: {failure?: Array<{type: string}>}) => testcase.failure?.map((failure) => failure.type) ?? []),
      [['publication-metadata-missing'], ['invalid-plugin-id'], [], []],
    )
    assert.deepEqual([weather.tests, weather.failures], ['4', '2'])
    assert.equal(weather.testcase[1].line, '3')
    assert.match(weather.testcase[2]['system-out'], /^warning unknown-permission: /)
    assert.deepEqual([clock.testcase[0].name, clock.testcase[0].failure, clock.tests], ['development level', undefined, '1'])
    assert.equal(gone.testcase[0].error.type, 'file-not-found')
    assert.deepEqual([parsed.testsuites.tests, parsed.testsuites.failures, parsed.testsuites.errors], ['6', '2', '1'])
  })

  it('escapes markup and drops characters XML cannot carry', () => {
    const odd = renderJunit([sampleReport([{code: 'malformed', severity: 'error', message: 'a <b> & "c"\u0001', pointer: null, line: 1, column: 1}])], {cwd: sampleCwd})
    assert.equal(XMLValidator.validate(odd), true)
    const failure = new XMLParser({ignoreAttributes: false, attributeNamePrefix: ''}).parse(odd).testsuites.testsuite.testcase.failure
    assert.equal(failure.message, 'a <b> & "c"\\u0001')
  })
})

describe('renderGitlab', () => {
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'report', 'gitlab-code-quality.schema.json'), 'utf8'))
  const validate = new Ajv({allErrors: true}).compile(schema)
  const issues = JSON.parse(renderGitlab(subjects, {cwd: `${sampleCwd}/weather`, root: '/work'}))

  it('is a valid Code Quality report', () => {
    assert.ok(validate(issues), JSON.stringify(validate.errors))
  })

  it('is checked by a schema that does reject a broken report', () => {
    assert.equal(validate([{...issues[0], severity: 'error'}]), false)
    assert.equal(validate([{...issues[0], location: {path: '/abs/manifest.json', lines: {begin: 1}}}]), false)
  })

  it('has an issue per diagnostic, paths relative to the repository root, and a critical one for an unread subject', () => {
    assert.equal(issues.length, 5)
    assert.deepEqual(issues[1], {
      description: 'The id "Com.Example" is not a reverse-domain id.',
      check_name: 'invalid-plugin-id',
      fingerprint: issues[1].fingerprint,
      severity: 'major',
      location: {path: 'plugins/weather/manifest.json', lines: {begin: 3}},
    })
    assert.equal(issues[2].severity, 'minor')
    assert.equal(issues[3].location.lines.begin, 1)
    assert.deepEqual([issues[4].check_name, issues[4].severity, issues[4].location.path], ['file-not-found', 'critical', 'plugins/weather/plugins/gone'])
  })

  it('gives stable, distinct fingerprints', () => {
    const again = JSON.parse(renderGitlab(subjects, {cwd: `${sampleCwd}/weather`, root: '/work'}))
    assert.deepEqual(
      again.map((issue: {fingerprint: string}) => issue.fingerprint),
      issues.map((issue: {fingerprint: string}) => issue.fingerprint),
    )
    assert.equal(new Set(issues.map((issue: {fingerprint: string}) => issue.fingerprint)).size, issues.length)
    assert.match(issues[0].fingerprint, /^[0-9a-f]{64}$/)
  })
})

describe('renderStepSummary', () => {
  it('is a Markdown table of subjects, then of problems linked to their pages', () => {
    const markdown = renderStepSummary(subjects, {cwd: sampleCwd, codePages: samplePages})
    const lines = markdown.split('\n')
    assert.equal(lines[0], '### svc-plugin validate')
    assert.equal(lines[2], '| Subject | Result | Errors | Warnings |')
    // Every punctuation character of a value is escaped; the tool's own links are the only Markdown.
    assert.equal(lines[4], '| com\\.example\\.weather\\-station 1\\.4\\.2 | invalid \\(development\\) | 2 | 1 |')
    assert.equal(lines[5], '| com\\.example\\.clock 2\\.0\\.0 | valid \\(development\\) | 0 | 0 |')
    assert.equal(lines[6], '| plugins\\/gone | not read\\: [`file-not-found`](https://github.com/example/svc-plugin/blob/v1.2.3/docs/codes/file-not-found.md) | 1 | 0 |')
    assert.ok(markdown.includes('| com\\.example\\.weather\\-station 1\\.4\\.2 | error | [`invalid-plugin-id`](https://github.com/example/svc-plugin/blob/v1.2.3/docs/codes/invalid-plugin-id.md) |'))
  })
})
