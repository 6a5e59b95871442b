import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {XMLParser} from 'fast-xml-parser'
import type {Diagnostic, Severity} from '../../src/manifest/diagnostic.js'
import type {SubjectResult} from '../../src/manifest/report.js'
import {renderSubjects, reportFormats} from '../../src/report/render.js'
import {tooManyWarnings, warningLimit, warningLimitMessage} from '../../src/report/warning-limit.js'
import {sampleCwd, sampleReport} from './sample-reports.js'

// The invariant: a run fails on its warnings exactly when --max-warnings n is at least 0 and the warnings of
// every subject together exceed n, and then every format says so (and says nothing of it otherwise).

const problem: fc.Arbitrary<Diagnostic> = fc.record({
  code: fc.constantFrom('unknown-permission', 'invalid-name', 'schema:type'),
  severity: fc.constantFrom<Severity>('error', 'warning', 'info'),
  message: fc.string({maxLength: 12}),
  pointer: fc.constantFrom(null, '', '/permissions/0'),
  line: fc.option(fc.integer({min: 1, max: 40}), {nil: null}),
  column: fc.option(fc.integer({min: 1, max: 40}), {nil: null}),
})
const subjects: fc.Arbitrary<SubjectResult[]> = fc.array(
  fc.oneof(
    fc.tuple(fc.array(problem, {maxLength: 4}), fc.constantFrom('a', 'b', 'c')).map(([problems, folder]) =>
      sampleReport(problems, {file: `${sampleCwd}/${folder}/manifest.json`, subject: {kind: 'directory', path: `${sampleCwd}/${folder}`}}),
    ),
    fc.constant<SubjectResult>({path: 'gone', code: 'file-not-found', message: 'gone does not exist.', error: Object.assign(new Error('gone does not exist.'), {code: 'file-not-found'})}),
  ),
  {minLength: 1, maxLength: 4},
)
const maxWarnings = fc.option(fc.integer({min: -2, max: 6}), {nil: undefined})

/** The warnings of a run, counted by hand. */
function warningsOf(run: readonly SubjectResult[]): number {
  return run.reduce((sum, subject) => sum + ('problems' in subject ? subject.problems.filter((item) => item.severity === 'warning').length : 0), 0)
}

/** What each format says about the limit: exceeded (true), within it (false), or nothing (null). */
function verdicts(run: readonly SubjectResult[], limit: number | undefined): Record<string, boolean | null> {
  const options = {cwd: sampleCwd, root: sampleCwd, ...(limit === undefined ? {} : {maxWarnings: limit})}
  const render = (format: (typeof reportFormats)[number]) => renderSubjects(run, format, options)
  const json = JSON.parse(render('json'))
  const sarif = JSON.parse(render('sarif')).runs[0].invocations[0].toolExecutionNotifications as Array<{descriptor: {id: string}}>
  const junit = new XMLParser({ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name)}).parse(render('junit'))
  const limitSuite = (junit.testsuites.testsuite as Array<{name: string; testcase: Array<{failure?: {type: string}}>}>).find((suite) => suite.name === 'svc-plugin validate')
  const gitlab = JSON.parse(render('gitlab')) as Array<{check_name: string}>
  const text = render('text').trimEnd().split('\n')
  return {
    text: text.at(-1)!.startsWith(`error ${tooManyWarnings}: `) ? true : null,
    json: json.maxWarnings === undefined ? null : json.maxWarnings.exceeded,
    sarif: sarif.some((item) => item.descriptor.id === tooManyWarnings) ? true : null,
    github: render('github').includes(`::error title=${tooManyWarnings}::`) ? true : null,
    junit: limitSuite === undefined ? null : limitSuite.testcase[0]!.failure?.type === tooManyWarnings,
    gitlab: gitlab.some((issue) => issue.check_name === tooManyWarnings) ? true : null,
  }
}

describe('--max-warnings', () => {
  it('fails a run exactly when n >= 0 and its warnings exceed n, and every format says so, and only then', () => {
    fc.assert(
      fc.property(subjects, maxWarnings, (run, limit) => {
        const warnings = warningsOf(run)
        const active = limit !== undefined && limit >= 0
        const exceeded = active && warnings > limit
        assert.deepEqual(warningLimit(run, limit), active ? {limit, warnings, exceeded} : null)
        const said = exceeded ? true : null
        assert.deepEqual(verdicts(run, limit), {text: said, json: active ? exceeded : null, sarif: said, github: said, junit: active ? exceeded : null, gitlab: said})
      }),
      {numRuns: 200},
    )
  })

  it('says how many warnings there were and what the flag allows', () => {
    assert.equal(warningLimitMessage({limit: 0, warnings: 1, exceeded: true}), '1 warning found; --max-warnings 0 allows none.')
    assert.equal(warningLimitMessage({limit: 2, warnings: 3, exceeded: true}), '3 warnings found; --max-warnings 2 allows at most 2.')
  })
})
