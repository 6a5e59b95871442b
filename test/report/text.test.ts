import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {renderText} from '../../src/report/text.js'
import {mixedProblems, sampleCwd, sampleReport} from './sample-reports.js'

describe('renderText', () => {
  it('prints each diagnostic with its position, then the summary line', () => {
    const text = renderText([sampleReport(mixedProblems)], {color: false, cwd: sampleCwd})
    assert.equal(
      text,
      [
        'error publication-metadata-missing: The manifest has no "license"; the store requires one. [/] (publication)',
        '  at weather/manifest.json:1:1',
        'error invalid-plugin-id: The id "Com.Example" is not a reverse-domain id. [/id]',
        '  at weather/manifest.json:3:9',
        'warning unknown-permission: The permission "host:coffee" is not known. [/permissions/1]',
        '  at weather/manifest.json:12:37',
        'info schema:type: Just so you know.',
        'com.example.weather-station 1.4.2: 2 errors, 1 warning.',
        '',
      ].join('\n'),
    )
  })

  it('says "0 errors, 0 warnings" for a clean report and prints nothing else', () => {
    assert.equal(renderText([sampleReport([])], {color: false, cwd: sampleCwd}), 'com.example.weather-station 1.4.2: 0 errors, 0 warnings.\n')
  })

  it('names the manifest file in the summary when the id is unknown', () => {
    const report = sampleReport([{code: 'malformed', severity: 'error', message: 'Unexpected token at line 2, column 3.', pointer: null, line: 2, column: 3}], {
      pluginId: null,
      version: null,
      valid: false,
    })
    assert.equal(
      renderText([report], {color: false, cwd: sampleCwd}),
      'error malformed: Unexpected token at line 2, column 3.\n  at weather/manifest.json:2:3\nweather/manifest.json: 1 error, 0 warnings.\n',
    )
  })

  it('shows a file outside the working directory as an absolute path', () => {
    const report = sampleReport([], {pluginId: null, version: null})
    assert.equal(renderText([report], {color: false, cwd: '/elsewhere'}), `${sampleCwd}/weather/manifest.json: 0 errors, 0 warnings.\n`)
  })

  it('prints the line alone when the column is unknown', () => {
    const report = sampleReport([{code: 'invalid-name', severity: 'error', message: 'The name is blank.', pointer: '/name', line: 4, column: null}])
    assert.match(renderText([report], {color: false, cwd: sampleCwd}), /\n {2}at weather\/manifest\.json:4\n/)
  })

  it('with errorsOnly prints only the errors and no summary', () => {
    const text = renderText([sampleReport(mixedProblems)], {color: false, errorsOnly: true, cwd: sampleCwd})
    assert.deepEqual(
      text.split('\n').filter((line) => !line.startsWith('  at ')),
      [
        'error publication-metadata-missing: The manifest has no "license"; the store requires one. [/] (publication)',
        'error invalid-plugin-id: The id "Com.Example" is not a reverse-domain id. [/id]',
        '',
      ],
    )
  })

  it('with errorsOnly prints nothing at all for a report with warnings only', () => {
    assert.equal(renderText([sampleReport([mixedProblems[2]!])], {color: false, errorsOnly: true, cwd: sampleCwd}), '')
  })

  it('colours only the severity word when asked', () => {
    const text = renderText([sampleReport(mixedProblems)], {color: true, cwd: sampleCwd})
    const lines = text.split('\n')
    assert.equal(lines[0], '\u001b[31merror\u001b[39m publication-metadata-missing: The manifest has no "license"; the store requires one. [/] (publication)')
    assert.equal(lines[4], '\u001b[33mwarning\u001b[39m unknown-permission: The permission "host:coffee" is not known. [/permissions/1]')
    assert.equal(lines[6], '\u001b[36minfo\u001b[39m schema:type: Just so you know.')
    assert.equal(lines.at(-2), 'com.example.weather-station 1.4.2: 2 errors, 1 warning.')
  })

  it('never colours when not asked', () => {
    assert.doesNotMatch(renderText([sampleReport(mixedProblems)], {color: false, cwd: sampleCwd}), /\u001b/)
  })
})
