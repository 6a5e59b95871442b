/**
 * The direction of imports inside src/ (docs/architecture.md): each folder imports only folders of a
 * lower rank, never a sibling of its own rank, never one above; no module imports itself in a circle.
 * commands/ sit above all of src/ and reach the library only through src/index.ts.
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
  ['index.ts'],
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
    {name: 'no-circular', comment: 'No module reaches itself through its imports.', severity: 'error', from: {}, to: {circular: true}},
    ...layerRules,
    {
      name: 'commands-through-the-entry-point',
      comment: 'Commands use the library as a host would: through src/index.ts only.',
      severity: 'error',
      from: {path: '^commands/'},
      to: {path: '^src/', pathNot: '^src/index\\.ts$'},
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
    moduleSystems: ['es6'],
  },
}
