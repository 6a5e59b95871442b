#!/usr/bin/env node
// Runs every dist/test/**/*.test.js with node's test runner (Node 20's --test has no glob patterns,
// and given a directory it would also run the helper modules beside the tests).
import {spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import path from 'node:path'

const root = path.join('dist', 'test')
const files = readdirSync(root, {recursive: true})
  .map(String)
  .filter((file) => file.endsWith('.test.js'))
  .sort()
  .map((file) => path.join(root, file))
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...process.argv.slice(2), ...files], {stdio: 'inherit'})
process.exit(result.status ?? 1)
