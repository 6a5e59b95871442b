#!/usr/bin/env node
// `svc-plugin --version` (or `-v`) answers from package.json alone; every other command line is parsed by
// oclif, in the bundled command line that `npm run build` writes, which loads only the command asked for.
import {readFileSync} from 'node:fs'

const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const {name, version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  const {main} = await import('../dist/bundle/cli/main.mjs')
  await main(import.meta.url)
}
