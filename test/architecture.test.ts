import assert from 'node:assert/strict'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import {cruise, type IViolation} from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

describe('the direction of imports (.dependency-cruiser.cjs, docs/architecture.md)', () => {
  it('has no import cycle, no upward or sideways import inside src/, and commands reach src/ only through src/index.ts', async () => {
    const options = await extractDepcruiseOptions(path.join(root, '.dependency-cruiser.cjs'))
    const cwd = process.cwd()
    process.chdir(root)
    try {
      const result = await cruise(['src', 'commands'], {...options, validate: true})
      const output = result.output as {summary: {violations: IViolation[]}}
      const violations = output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`)
      assert.deepEqual(violations, [])
    } finally {
      process.chdir(cwd)
    }
  })
})
