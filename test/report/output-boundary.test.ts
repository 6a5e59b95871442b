import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {repoRoot} from '../helpers/cli.js'

// The escaping of hostile text is done where output is written (docs/output-escaping.md). These checks
// keep it there: a module that wrote to the channels itself, or made JSON text itself, would bypass it.

/** Every TypeScript source under `folder` (relative to the repository), by its relative path. */
function sources(folder: string): Map<string, string> {
  const files = new Map<string, string>()
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(repoRoot, relative), {withFileTypes: true})) {
      const child = `${relative}/${entry.name}`
      if (entry.isDirectory()) walk(child)
      else if (entry.name.endsWith('.ts')) files.set(child, readFileSync(path.join(repoRoot, child), 'utf8'))
    }
  }
  walk(folder)
  return files
}

const all = new Map([...sources('src'), ...sources('commands')])

describe('the output boundary', () => {
  it('sees the sources it judges', () => {
    assert.ok(all.has('commands/output.ts') && all.has('src/report/json-text.ts') && all.size > 100, `${all.size} files`)
  })

  it('lets only commands/output.ts (and the progress bar, which draws with its own terminal controls) reach the stdout and stderr channels', () => {
    const importers = [...all].filter(([, text]) => /from '(?:\.\.?\/)+io\.js'/.test(text)).map(([file]) => file)
    assert.deepEqual(importers.sort(), ['commands/output.ts', 'commands/progress.ts'])
  })

  it('has no module write to the process streams or the console directly', () => {
    const writers = [...all].filter(([, text]) => /process\.(?:stdout|stderr)\.write|console\.(?:log|error|warn|info|debug)\(/.test(text)).map(([file]) => file)
    assert.deepEqual(writers, [])
  })

  it('makes every JSON document printed in one place: no report module or command writes indented JSON text itself', () => {
    const makers = [...all]
      .filter(([file]) => file.startsWith('src/report/') || file.startsWith('commands/'))
      .filter(([, text]) => /JSON\.stringify\([^)]*,\s*null,\s*2\)/.test(text))
      .map(([file]) => file)
    assert.deepEqual(makers, ['src/report/json-text.ts'])
  })
})
