import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {renderJson} from '../../src/report/json.js'
import {mixedProblems, sampleReport} from './sample-reports.js'

describe('renderJson', () => {
  it('prints exactly valid, id, version, level, path, file and problems for one subject', () => {
    const document = JSON.parse(renderJson([sampleReport(mixedProblems)], {single: true}))
    assert.deepEqual(Object.keys(document), ['valid', 'id', 'version', 'level', 'path', 'file', 'problems'])
    assert.deepEqual(document, {
      valid: false,
      id: 'com.example.weather-station',
      version: '1.4.2',
      level: 'development',
      path: '/work/plugins/weather/manifest.json',
      file: '/work/plugins/weather/manifest.json',
      problems: mixedProblems.map((problem) => ({...problem, file: '/work/plugins/weather/manifest.json'})),
    })
  })

  it('prints {valid, subjects} for several subjects, a subject that could not be read as its error', () => {
    const error = Object.assign(new Error('nope does not exist.'), {code: 'file-not-found'})
    const document = JSON.parse(renderJson([sampleReport([]), {path: 'nope', code: 'file-not-found', message: error.message, error}]))
    assert.deepEqual(Object.keys(document), ['valid', 'subjects'])
    assert.equal(document.valid, false)
    assert.equal(document.subjects[0].valid, true)
    assert.deepEqual(document.subjects[1], {valid: false, path: 'nope', error: {code: 'file-not-found', message: 'nope does not exist.'}})
  })

  it('keeps diagnostic keys in the documented order and leaves out an absent requiredBy', () => {
    const document = JSON.parse(renderJson([sampleReport(mixedProblems)], {single: true}))
    assert.deepEqual(Object.keys(document.problems[0]), ['code', 'severity', 'message', 'file', 'pointer', 'line', 'column', 'requiredBy'])
    assert.deepEqual(Object.keys(document.problems[1]), ['code', 'severity', 'message', 'file', 'pointer', 'line', 'column'])
  })

  it('drops whatever else a diagnostic object carries', () => {
    const extra = {...mixedProblems[1]!, internal: 'x'}
    const document = JSON.parse(renderJson([sampleReport([extra])], {single: true}))
    assert.equal('internal' in document.problems[0], false)
  })

  it('is one indented document ending in a newline, with no subject', () => {
    const text = renderJson([sampleReport([])], {single: true})
    assert.ok(text.startsWith('{\n  "valid": true,'))
    assert.ok(text.endsWith('}\n'))
    assert.equal('subject' in JSON.parse(text), false)
  })

  it('keeps null id and version for a manifest that did not parse', () => {
    const document = JSON.parse(renderJson([sampleReport([], {pluginId: null, version: null})], {single: true}))
    assert.equal(document.id, null)
    assert.equal(document.version, null)
  })
})
