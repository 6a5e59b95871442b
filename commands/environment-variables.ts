/**
 * The environment variables a host's scripts can set instead of repeating a flag on every command. A flag
 * given on the command line always wins over its variable.
 */
export const environmentVariables = {
  'data-root': 'SVC_PLUGIN_DATA_ROOT',
  trust: 'SVC_PLUGIN_TRUST',
  revocations: 'SVC_PLUGIN_REVOCATIONS',
} as const
