import type {Rule} from './types.js'

/**
 * The package ships no secret (`secret-detected`): no private key, no `.env` file, no credential of a
 * well-known shape, in any file its reader looked into. Reported at package level and above, so that a
 * store refuses what `pack` would have refused; each at the file (and line, when known) that holds it.
 */
export const packageHoldsNoSecrets: Rule = {
  name: 'package-holds-no-secrets',
  codes: ['secret-detected'],
  level: 'package',
  check({content, emit}) {
    for (const secret of content?.secrets ?? []) {
      const where = secret.line === null ? JSON.stringify(secret.path) : `${JSON.stringify(secret.path)} (line ${secret.line})`
      emit({
        code: 'secret-detected',
        requiredBy: 'package',
        pointer: '',
        at: {path: secret.path, line: secret.line, column: secret.column ?? null},
        message: `${where} holds ${secret.what}; a plugin must not ship it. Remove the file, or list it in .svcpluginignore.`,
      })
    }
  },
}
