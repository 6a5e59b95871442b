import {installMutationSuite} from './mutation-aborts.js'

installMutationSuite('all', 'full')
