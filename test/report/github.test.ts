import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {escapeData, escapeProperty, renderGithub} from '../../src/report/github.js'
import {mixedProblems, sampleCwd, samplePages, sampleReport} from './sample-reports.js'

/** The title property of a code: the code and its help page, escaped as a property. */
function title(code: string): string {
  return `title=${code.replace(':', '%3A')} (https%3A//github.com/example/svc-plugin/blob/v1.2.3/docs/codes/${code.replace(':', '-')}.md)`
}

describe('renderGithub', () => {
  it('prints one workflow command per diagnostic, severity mapped to error/warning/notice', () => {
    assert.equal(
      renderGithub([sampleReport(mixedProblems)], {cwd: sampleCwd, codePages: samplePages}),
      [
        `::error file=weather/manifest.json,line=1,col=1,${title('publication-metadata-missing')}::The manifest has no "license"; the store requires one.`,
        `::error file=weather/manifest.json,line=3,col=9,${title('invalid-plugin-id')}::The id "Com.Example" is not a reverse-domain id.`,
        `::warning file=weather/manifest.json,line=12,col=37,${title('unknown-permission')}::The permission "host:coffee" is not known.`,
        `::notice file=weather/manifest.json,${title('schema:type')}::Just so you know.`,
        '',
      ].join('\n'),
    )
  })

  it('prints nothing for a clean report', () => {
    assert.equal(renderGithub([sampleReport([])], {cwd: sampleCwd, codePages: samplePages}), '')
  })

  it('shows CR, LF and every other control of a message visibly, and escapes % as GitHub documents', () => {
    const report = sampleReport([{code: 'malformed', severity: 'error', message: '100% wrong\r\nsecond line\u001b[2J\u202e', pointer: null, line: 1, column: 1}])
    assert.equal(renderGithub([report], {cwd: sampleCwd, codePages: samplePages}), `::error file=weather/manifest.json,line=1,col=1,${title('malformed')}::100%25 wrong\\r\\nsecond line\\u001b[2J\\u202e\n`)
  })

  it('escapes : and , in property values, and leaves them alone in the message', () => {
    const report = sampleReport([{code: 'schema:required', severity: 'error', message: 'a: b, c', pointer: '', line: 1, column: 1}], {
      file: `${sampleCwd}/odd,name:dir/manifest.json`,
    })
    assert.equal(renderGithub([report], {cwd: sampleCwd, codePages: samplePages}), `::error file=odd%2Cname%3Adir/manifest.json,line=1,col=1,${title('schema:required')}::a: b, c\n`)
  })

  it('escapes % before the characters it introduces', () => {
    assert.equal(escapeData('%0A\n'), '%250A%0A')
    assert.equal(escapeProperty('%3A:,\r'), '%253A%3A%2C%0D')
  })
})
