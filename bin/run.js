#!/usr/bin/env node
// `svc-plugin --version` answers from package.json alone. A command that can run without oclif does, when
// its command line is plain (dist/cli/direct); everything else runs the bundled command line (dist/cli,
// written by `npm run build`), which loads only the command that was asked for.
import {readFileSync} from 'node:fs'

const root = new URL('..', import.meta.url)
const argv = process.argv.slice(2)
if (argv.length === 1 && argv[0] === '--version') {
  const {name, version} = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))
  process.stdout.write(`${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  const {runDirectly} = await import('../dist/cli/direct/direct.js')
  if (!(await runDirectly(argv, root))) {
    const {main} = await import('../dist/cli/main.js')
    await main(import.meta.url)
  }
}
