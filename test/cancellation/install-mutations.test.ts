import {installMutationSuite} from './mutation-aborts.js'

// A fixed sample of the changes, spread over all of them (both ends included); the exhaustive suite
// (install-mutations.exhaustive.test.ts) aborts before every one, with larger files.
installMutationSuite(10, 'sample')
