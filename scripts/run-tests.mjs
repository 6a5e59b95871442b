#!/usr/bin/env node
// Runs the test files under dist/test with node's test runner (Node 20's --test has no glob patterns, and
// given a directory it would also run the helper modules beside the tests):
//   node scripts/run-tests.mjs              every *.test.js except the exhaustive ones (npm test)
//   node scripts/run-tests.mjs --exhaustive every *.exhaustive.test.js: proofs that take minutes by nature
//                                           (every kill point, every byte of an artifact; npm run test:exhaustive)
// Other arguments go to node --test (e.g. --test-reporter=spec for the full tree of results).
import {spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const args = process.argv.slice(2)
const exhaustive = args.includes('--exhaustive')
const passThrough = args.filter((arg) => arg !== '--exhaustive')
const root = path.join('dist', 'test')
const files = readdirSync(root, {recursive: true})
  .map(String)
  .filter((file) => file.endsWith('.test.js') && file.endsWith('.exhaustive.test.js') === exhaustive)
  .sort()
  .map((file) => path.join(root, file))
const reporter = passThrough.some((arg) => arg.startsWith('--test-reporter'))
  ? []
  : [`--test-reporter=${path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-reporter.mjs')}`, '--test-reporter-destination=stdout']
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...reporter, ...passThrough, ...files], {stdio: 'inherit'})
process.exit(result.status ?? 1)
