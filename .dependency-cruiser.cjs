/**
 * The direction of imports inside src/ (docs/architecture.md): each folder imports only folders of a
 * lower rank, never a sibling of its own rank, never one above; no module imports itself in a circle.
 * The entries (index.ts for hosts, store.ts, tooling.ts, and cli.ts, the command line's private one) sit
 * on top; commands/ sit above all of src/ and reach the library only through src/cli.ts (`#cli`).
 */
const ranks = [
  ['errors.ts', 'quantities.ts'],
  ['cancellation.ts'],
  ['fs', 'json'],
  ['model'],
  ['archive'],
  ['manifest', 'pki'],
  ['artifact'],
  ['revocation'],
  ['signing'],
  ['pack', 'merge', 'inspect', 'validate', 'report', 'init'],
  ['install', 'store'],
  ['develop'],
  ['index.ts', 'store.ts', 'tooling.ts'],
  ['cli.ts'],
]

const pattern = (names) => `^src/(${names.map((name) => name.replace('.', '\\.')).join('|')})(/|$)`

const layerRules = ranks.flatMap((names, rank) =>
  names.map((name) => {
    const notBelow = ranks.slice(rank).flat().filter((other) => other !== name)
    return {
      name: `layer-${name.replace('.ts', '')}`,
      comment: `src/${name} imports only the folders below its rank`,
      severity: 'error',
      from: {path: pattern([name])},
      to: {path: pattern(notBelow)},
    }
  }),
)

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      // An action names its command class's type (its input is typed from the class's flags), and the class
      // runs the action: a cycle of types only, which no module loads.
      comment: 'No module reaches itself through the imports it loads.',
      severity: 'error',
      from: {},
      to: {circular: true, viaOnly: {dependencyTypesNot: ['type-only']}},
    },
    ...layerRules,
    {
      name: 'commands-through-their-entry',
      comment: 'Commands use the library through its entry for the command line, src/cli.ts (#cli), only.',
      severity: 'error',
      from: {path: '^commands/'},
      to: {path: '^(src|dist)/', pathNot: '^src/cli\\.ts$'},
    },
    {
      name: 'library-never-imports-commands',
      severity: 'error',
      from: {path: '^src/'},
      to: {path: '^(commands|scripts|test)/'},
    },
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    tsPreCompilationDeps: true,
    tsConfig: {fileName: 'tsconfig.json'},
    // `#cli` (package.json `imports`) is src/cli.ts to the compiler and dist/src/cli.js to node: read the source.
    enhancedResolveOptions: {conditionNames: ['types', 'import', 'default']},
    moduleSystems: ['es6'],
  },
}
