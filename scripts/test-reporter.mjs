// A compact reporter for node's test runner: one dot per ten passing tests, every failure in full (its
// name, where it is, what was expected), and one summary line. `npm test` uses it so that a run prints a
// screenful, not thousands of TAP lines.
import {inspect} from 'node:util'

export default async function* compactReporter(source) {
  let passed = 0
  let failed = 0
  let skipped = 0
  let dots = 0
  const failures = []
  const started = Date.now()
  const fileTime = new Map()
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      fileTime.set(event.data.file, (fileTime.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0))
    }
    if (event.type === 'test:pass') {
      if (event.data.details?.type === 'suite') continue
      if (event.data.skip || event.data.todo) skipped++
      else passed++
      if (passed % 10 === 0) {
        dots++
        yield dots % 100 === 0 ? '.\n' : '.'
      }
    } else if (event.type === 'test:fail') {
      const error = event.data.details?.error
      // A suite fails when one of its tests does; the test itself is what to report.
      if (event.data.details?.type === 'suite' && error?.failureType === 'subtestsFailed') continue
      failed++
      failures.push(event.data)
      yield 'F'
    } else if (event.type === 'test:stderr' || event.type === 'test:stdout') {
      // Output a test printed stays out of the way unless something failed.
    }
  }
  yield '\n'
  for (const failure of failures) {
    const error = failure.details?.error
    const cause = error?.cause ?? error
    yield `\nnot ok: ${failure.name}\n  at ${failure.file ?? '?'}:${failure.line ?? '?'}\n`
    yield `  ${(cause?.message ?? inspect(cause)).split('\n').join('\n  ')}\n`
    if (cause?.expected !== undefined || cause?.actual !== undefined) {
      yield `  expected: ${inspect(cause.expected, {depth: 4, breakLength: 120})}\n  actual:   ${inspect(cause.actual, {depth: 4, breakLength: 120})}\n`
    }
  }
  const slowest = [...fileTime].sort((a, b) => b[1] - a[1]).slice(0, 5)
  if (slowest.length > 0) {
    yield `\nslowest files: ${slowest.map(([file, ms]) => `${file.replace(/^.*dist\/test\//, '')} ${(ms / 1000).toFixed(1)} s`).join(', ')}\n`
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  yield `\n${failed === 0 ? 'ok' : 'FAILED'}: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''} in ${seconds} s\n`
}
