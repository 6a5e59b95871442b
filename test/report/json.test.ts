import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {renderJson} from '../../src/report/json.js'
import {mixedProblems, sampleReport} from './sample-reports.js'

describe('renderJson', () => {
  it('prints exactly valid, pluginId, version, level, file and problems', () => {
    const document = JSON.parse(renderJson([sampleReport(mixedProblems)], {single: true}))
    assert.deepEqual(Object.keys(document), ['valid', 'pluginId', 'version', 'level', 'file', 'problems'])
    assert.deepEqual(document, {
      valid: false,
      pluginId: 'com.example.weather-station',
      version: '1.4.2',
      level: 'development',
      file: '/work/plugins/weather/manifest.json',
      problems: mixedProblems,
    })
  })

  it('keeps diagnostic keys in the documented order and leaves out an absent requiredBy', () => {
    const document = JSON.parse(renderJson([sampleReport(mixedProblems)], {single: true}))
    assert.deepEqual(Object.keys(document.problems[0]), ['code', 'severity', 'message', 'pointer', 'line', 'column', 'requiredBy'])
    assert.deepEqual(Object.keys(document.problems[1]), ['code', 'severity', 'message', 'pointer', 'line', 'column'])
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
    assert.equal(document.pluginId, null)
    assert.equal(document.version, null)
  })
})
