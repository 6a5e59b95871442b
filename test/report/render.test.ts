import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {renderGithub} from '../../src/report/github.js'
import {renderJson} from '../../src/report/json.js'
import {renderReport, reportFormats} from '../../src/report/render.js'
import {renderSarif} from '../../src/report/sarif.js'
import {renderText} from '../../src/report/text.js'
import {mixedProblems, sampleCwd, sampleReport} from './sample-reports.js'

describe('renderReport', () => {
  const report = sampleReport(mixedProblems)
  const options = {color: false, errorsOnly: false, toolVersion: '9.9.9', cwd: sampleCwd}

  it('offers exactly text, json, sarif, github, junit and gitlab', () => {
    assert.deepEqual(reportFormats, ['text', 'json', 'sarif', 'github', 'junit', 'gitlab'])
  })

  it('hands each format to its renderer', () => {
    assert.equal(renderReport(report, 'text', options), renderText([report], {color: false, cwd: sampleCwd}))
    assert.equal(renderReport(report, 'json', options), renderJson([report], {single: true}))
    assert.equal(renderReport(report, 'sarif', options), renderSarif([report], {toolVersion: '9.9.9', cwd: sampleCwd}))
    assert.equal(renderReport(report, 'github', options), renderGithub([report], {cwd: sampleCwd}))
  })

  it('applies colour and errorsOnly to text only', () => {
    assert.equal(renderReport(report, 'text', {...options, color: true, errorsOnly: true}), renderText([report], {color: true, errorsOnly: true, cwd: sampleCwd}))
    assert.equal(renderReport(report, 'github', {...options, color: true, errorsOnly: true}), renderGithub([report], {cwd: sampleCwd}))
    assert.doesNotMatch(renderReport(report, 'json', {...options, color: true}), /\u001b/)
  })
})
