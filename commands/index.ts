import Activate from './activate.js'
import Install from './install.js'
import List from './list.js'
import Uninstall from './uninstall.js'
import Merge from './merge.js'
import Inspect from './inspect.js'
import Pack from './pack.js'
import Schema from './schema.js'
import Validate from './validate.js'
import Keygen from './keygen.js'
import CertRoot from './cert/root.js'
import CertIssue from './cert/issue.js'
import Sign from './sign.js'
import Verify from './verify.js'
import CertRevoke from './cert/revoke.js'
import StoreVerify from './store/verify.js'
import StoreCountersign from './store/countersign.js'
import Help from './help.js'
import Init from './init.js'
import Dev from './dev.js'

/**
 * Every command of the CLI, by id (oclif's explicit discovery: no directory scan at start-up).
 * Topic commands use `:` in their id (`cert:root` is `svc-plugin cert root`).
 */
export const COMMANDS = {
  activate: Activate,
  install: Install,
  list: List,
  uninstall: Uninstall,
  merge: Merge,
  inspect: Inspect,
  pack: Pack,
  schema: Schema,
  validate: Validate,
  keygen: Keygen,
  'cert:root': CertRoot,
  'cert:issue': CertIssue,
  sign: Sign,
  verify: Verify,
  'cert:revoke': CertRevoke,
  'store:verify': StoreVerify,
  'store:countersign': StoreCountersign,
  help: Help,
  init: Init,
  dev: Dev,
}
