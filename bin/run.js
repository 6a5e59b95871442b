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
  // Without the direct path (a build that did not write it), every command still runs through oclif.
  const direct = await import('../dist/cli/direct/direct.js').catch((error) => {
    if (error?.code === 'ERR_MODULE_NOT_FOUND') return null
    throw error
  })
  if (direct === null || !(await direct.runDirectly(argv, root))) {
    const {main} = await import('../dist/cli/main.js')
    await main(import.meta.url)
  }
}
