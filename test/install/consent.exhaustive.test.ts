import {after, describe, it} from 'node:test'

import {tempDir} from '../helpers/cli.js'
import {checkConsentCases} from './helpers/consent.js'

// The invariant of helpers/consent.ts over many more pairs of manifests than the everyday suite runs.

const runs = 300

const work = await tempDir('svc-plugin-consent-exhaustive-')
after(() => work.cleanup())

describe('consent to what an update newly asks for (exhaustive)', () => {
  it(`is asked iff the update adds something, and a refusal leaves the data root as it was: ${runs} seeded pairs`, async () => {
    await checkConsentCases(work.dir, runs, 0xc0175e)
  })
})
