#!/usr/bin/env node
import {flush, run} from '@oclif/core'

// A failure no command caught is reported by the command layer (never a stack trace, unless asked for).
await run(process.argv.slice(2), import.meta.url).then(
  () => flush(),
  async (error) => (await import('../dist/commands/failure.js')).exitOnFailure(error),
)
