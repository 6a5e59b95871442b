/**
 * svc-plugin: validate, pack, sign, verify and install `.svcPlugin` artifacts.
 * Everything a host application or a plugin store needs is exported from here.
 */
export {SvcPluginError, isSvcPluginError} from './errors.js'
