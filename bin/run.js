#!/usr/bin/env node
// `svc-plugin --version` answers from package.json alone; everything else runs the bundled command line
// (dist/cli, written by `npm run build`), which loads only the command that was asked for.
import {readFileSync} from 'node:fs'

if (process.argv[2] === '--version' && process.argv.length === 3) {
  const {name, version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  const {main} = await import('../dist/cli/main.js')
  await main(import.meta.url)
}
