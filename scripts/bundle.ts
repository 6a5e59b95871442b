/**
 * Build step: bundles what the package ships into `dist/bundle/`, once. The entries:
 *
 * - `index.mjs`, `store.mjs`, `tooling.mjs`: the library's public entries (src/index.ts, src/store.ts,
 *   src/tooling.ts), what `svc-plugin`, `svc-plugin/store` and `svc-plugin/tooling` resolve to;
 * - `cli/main.mjs`, one module per command under `cli/commands/` and the hook under `cli/hooks/`: the command
 *   line, whose `oclif.manifest.json` (written here) tells oclif every command's flags and help, so that
 *   `svc-plugin verify` loads oclif and the code of verify, and nothing of pack;
 *
 * and the code they share goes to `chunks/`, each byte in one file. Everything the package runs is inside:
 * its dependencies are bundled (so it has none to install), and what only some paths need (the credential
 * rules, glob patterns) is loaded on first use. `dist/bundle.json` (not shipped) records what each file
 * holds, for the tests that check what a host loads.
 *
 * The package's types are the declarations `tsc` writes into `dist/src` that the public entries reach,
 * copied into `dist/types/`; the rest of `dist/` (the compiled modules, which the tests run in-process)
 * is not shipped.
 */
import {copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {Config, type Interfaces} from '@oclif/core'
import {build, transformSync, type Metafile, type Plugin} from 'esbuild'
import ts from 'typescript'
import {COMMANDS} from '../commands/index.js'
import {generatedValidatorFile} from '../src/manifest/schema-validator.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const outdir = path.join(root, 'dist', 'bundle')
const typesDir = path.join(root, 'dist', 'types')
const manifestFile = path.join(root, 'oclif.manifest.json')
/**
 * The extension of every ES module of the bundle. Node takes `.mjs` for an ES module from its name alone; a
 * `.js` file makes it look for the nearest package.json and read its `type` on every import of the file
 * (measured: 2 to 3 % of a short command's time).
 */
const moduleExtension = '.mjs'
const contentsFile = path.join(root, 'dist', 'bundle.json')

/** The library's entries (public, and the command line's private `#cli`), as package.json names them. */
const libraryEntries = {index: 'src/index.ts', store: 'src/store.ts', tooling: 'src/tooling.ts'} as const
const privateEntry = 'src/cli.ts'
/** The worker threads (pack's encoding, an artifact reader's digesting, install's file writing), each with the module that starts it from beside itself. */
const workers = [
  {name: 'encode-worker', source: path.join('src', 'archive', 'encode-worker.ts'), starter: path.join('src', 'archive', 'encode-workers.ts')},
  {name: 'pack-worker', source: path.join('src', 'pack', 'pack-worker.ts'), starter: path.join('src', 'pack', 'pack.ts')},
  {name: 'entry-worker', source: path.join('src', 'artifact', 'entry-worker.ts'), starter: path.join('src', 'artifact', 'entry-workers.ts')},
  {name: 'write-worker', source: path.join('src', 'fs', 'write-worker.ts'), starter: path.join('src', 'fs', 'file-writer.ts')},
] as const
/** The module that loads the manifest schema's compiled validator from beside itself. */
const validatorSource = path.join('src', 'manifest', 'schema-validator.ts')

/** What a module exports: the names it declares, the names it re-exports from others, and its `export *`s. */
interface ModuleExports {
  readonly declared: ReadonlySet<string>
  readonly reexported: ReadonlyMap<string, {readonly file: string; readonly name: string}>
  readonly starred: readonly string[]
}

const moduleExports = new Map<string, ModuleExports>()

/** The source file an import specifier of `from` names (`#cli` is src/cli.ts), or undefined for a package. */
function sourceFileOf(from: string, specifier: string): string | undefined {
  if (specifier === '#cli') return path.join(root, privateEntry)
  if (!specifier.startsWith('.')) return undefined
  const file = path.resolve(path.dirname(from), specifier).replace(/\.js$/, '.ts')
  return existsSync(file) ? file : undefined
}

/** Reads what `file` exports (types left out), once. */
function exportsOfModule(file: string): ModuleExports {
  const known = moduleExports.get(file)
  if (known !== undefined) return known
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022)
  const declared = new Set<string>()
  const reexported = new Map<string, {file: string; name: string}>()
  const starred: string[] = []
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
    if (exported && ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) declared.add(declaration.name.text)
    } else if (exported && (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name !== undefined) {
      declared.add(statement.name.text)
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
      const target = statement.moduleSpecifier === undefined ? undefined : sourceFileOf(file, (statement.moduleSpecifier as ts.StringLiteral).text)
      const clause = statement.exportClause
      if (clause === undefined) {
        if (target !== undefined) starred.push(target)
      } else if (ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          if (element.isTypeOnly) continue
          if (target === undefined) declared.add(element.name.text)
          else reexported.set(element.name.text, {file: target, name: (element.propertyName ?? element.name).text})
        }
      }
    }
  }
  const exports = {declared, reexported, starred}
  moduleExports.set(file, exports)
  return exports
}

/** The module that declares what `file` exports as `name`, following re-exports and `export *`. */
function declaringModule(file: string, name: string): {file: string; name: string} | undefined {
  const exports = exportsOfModule(file)
  if (exports.declared.has(name)) return {file, name}
  const reexport = exports.reexported.get(name)
  if (reexport !== undefined) return declaringModule(reexport.file, reexport.name) ?? reexport
  for (const star of exports.starred) {
    const found = declaringModule(star, name)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * Imports every name of the library and the command line from the module that declares it, rather than
 * through a module that re-exports it (`#cli`, `report/index.ts`, `model/index.ts`). esbuild places a shared
 * module by which entries reach it, not by which use it: through a module that re-exports everything,
 * every command, and every public entry, would reach every module behind it and load its code. Type-only
 * imports are left out (they have no code); default and namespace imports are left as they are.
 */
const importsFromDeclaringModules: Plugin = {
  name: 'imports-from-declaring-modules',
  setup(esbuild) {
    esbuild.onLoad({filter: /[\\/](src|commands)[\\/].*\.ts$/}, ({path: file}) => {
      const text = readFileSync(file, 'utf8')
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022)
      let contents = ''
      let at = 0
      for (const statement of source.statements) {
        if (!ts.isImportDeclaration(statement)) continue
        const clause = statement.importClause
        const target = sourceFileOf(file, (statement.moduleSpecifier as ts.StringLiteral).text)
        if (target === undefined || clause === undefined || clause.name !== undefined) continue
        const bindings = clause.namedBindings
        if (bindings !== undefined && !ts.isNamedImports(bindings)) continue
        const imports = clause.isTypeOnly
          ? []
          : (bindings?.elements ?? [])
              .filter((element) => !element.isTypeOnly)
              .map((element) => {
                const imported = (element.propertyName ?? element.name).text
                const origin = declaringModule(target, imported)
                if (origin === undefined) throw new Error(`bundle: ${path.relative(root, target)} exports no ${imported} (${path.relative(root, file)})`)
                return `import {${origin.name} as ${element.name.text}} from ${JSON.stringify(origin.file)};`
              })
        contents += text.slice(at, statement.getStart(source)) + imports.join('')
        at = statement.getEnd()
      }
      return {contents: contents + text.slice(at), loader: 'ts'}
    })
  },
}

/**
 * Changes to oclif's own code for a command line that starts fast. Each must apply to the version of oclif
 * the package pins, or the build fails: an upgrade of oclif gets a look at each of them.
 */
const oclifPatches: readonly {readonly file: string; readonly find: string; readonly replace: string}[] = [
  // The index checks the Node version against oclif's own package.json, which it finds through
  // `__dirname`: there is none in an ES module bundle, so the check could only fail, after loading
  // semver. npm checks the `engines` of svc-plugin itself.
  {file: 'index.js', find: '\ncheckNodeVersion();\n', replace: '\n'},
  // Comparing the command ids by locale loads the ICU collation data the first time, which costs more than
  // the rest of a small command; the ids are ASCII words, whose order is the same either way.
  {file: 'config/plugin.js', find: '.sort((a, b) => a.id.localeCompare(b.id))', replace: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))'},
  // Telling WSL from plain Linux loads a package that reads /proc and loads child_process, on every run,
  // for a name oclif only shows in its user agent; the kernel's release names Microsoft under WSL.
  {
    file: 'util/os.js',
    find: "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
    replace: "return process.platform === 'linux' && /microsoft/i.test((0, node_os_1.release)()) ? 'wsl' : (0, node_os_1.platform)();",
  },
  // Every logger is a `debug` function that prints only for the namespaces DEBUG names: without DEBUG,
  // a function that does nothing, without loading `debug` and its terminal detection.
  {
    file: 'logger.js',
    find: 'const debug_1 = __importDefault(require("debug"));',
    replace: 'const debug_1 = {default: (namespace) => (process.env.DEBUG ? require("debug")(namespace) : Object.assign(() => {}, {enabled: false, namespace}))};',
  },
]

/**
 * Packages oclif requires for what a built command line seldom does: finding commands by glob pattern
 * (tinyglobby, minimatch), help templates (ejs), spinners (cli-spinners), configuration files (lilconfig),
 * debug output (debug), and laying out and colouring help and its own error messages (wrap-ansi,
 * widest-line, string-width, indent-string, clean-stack, ansis, supports-color). In oclif's chunk every
 * command would read and compile their code (about half of the chunk) at each start; each is bundled
 * instead into a file of its own beside the chunk (`chunks/oclif-<name>.cjs`), which the first call that
 * needs it loads.
 */
const seldomUsedByOclif = ['tinyglobby', 'minimatch', 'ejs', 'cli-spinners', 'lilconfig', 'debug', 'wrap-ansi', 'widest-line', 'string-width', 'indent-string', 'clean-stack', 'supports-color', 'ansis'] as const
const seldomUsedFile = (name: string) => `oclif-${name}.cjs`

const loadSeldomUsedOnDemand: Plugin = {
  name: 'load-seldom-used-on-demand',
  setup(esbuild) {
    esbuild.onResolve({filter: new RegExp(`^(${seldomUsedByOclif.join('|')})$`)}, ({path: name, importer}) =>
      /[\\/]@oclif[\\/]core[\\/]/.test(importer) ? {path: `./${seldomUsedFile(name)}`, external: true} : undefined,
    )
  },
}

/**
 * Bundles each package of {@link seldomUsedByOclif}, as oclif resolves it, into its file in `chunks/`. One
 * that requires another of them (wrap-ansi and widest-line require string-width) loads that one's file
 * rather than holding a copy, when both resolve to the same files.
 */
async function bundleSeldomUsed(): Promise<void> {
  const resolveAsOclif = createRequire(createRequire(import.meta.url).resolve('@oclif/core'))
  const shareSeldomUsed: Plugin = {
    name: 'share-seldom-used',
    setup(esbuild) {
      esbuild.onResolve({filter: new RegExp(`^(${seldomUsedByOclif.join('|')})$`)}, ({path: name, resolveDir}) =>
        createRequire(path.join(resolveDir, 'index.js')).resolve(name) === resolveAsOclif.resolve(name) ? {path: `./${seldomUsedFile(name)}`, external: true} : undefined,
      )
    },
  }
  for (const name of seldomUsedByOclif) {
    await build({
      plugins: [shareSeldomUsed],
      entryPoints: [resolveAsOclif.resolve(name)],
      outfile: path.join(outdir, 'chunks', seldomUsedFile(name)),
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      minify: true,
      logLevel: 'warning',
    })
  }
}

/**
 * Node's own modules that oclif requires when it loads but a command seldom uses (a parent process's name on
 * Windows, performance marks under OCLIF_PERFORMANCE, a prompt for a missing argument): each costs a
 * millisecond or more to load, so they are deferred like oclif's packages.
 */
const deferredBuiltins = new Set(['node:child_process', 'node:perf_hooks', 'node:readline'])

/**
 * Loads oclif's modules with {@link oclifPatches} applied, and defers each `require` at the top of an oclif
 * module until the first use of what it gives: oclif's modules require every module they might use when
 * they are loaded, and a command line uses few of them (no spinner, no help, no plugin discovery, no
 * templates), so that a command loads what it runs.
 */
const startFastOclif: Plugin = {
  name: 'start-fast-oclif',
  setup(esbuild) {
    const helper =
      'function __deferred(load){let m;const get=()=>(m??=load());return new Proxy({},{get:(_,k)=>get()[k],has:(_,k)=>k in get(),ownKeys:()=>Reflect.ownKeys(get()),getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(get(),k);return d&&{...d,configurable:true}}})}\n'
    const applied = new Set<string>()
    esbuild.onLoad({filter: /[\\/]node_modules[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/}, ({path: file}) => {
      let text = readFileSync(file, 'utf8')
      const relative = file.split(/[\\/]lib[\\/]/).at(-1)?.replaceAll('\\', '/')
      for (const patch of oclifPatches.filter((candidate) => candidate.file === relative)) {
        if (text.split(patch.find).length !== 2) throw new Error(`bundle: oclif's ${patch.file} no longer holds ${JSON.stringify(patch.find)} once`)
        text = text.replace(patch.find, patch.replace)
        applied.add(patch.file)
      }
      let deferred = 0
      text = text
        .replace(/^(const|var|let) ([\w$]+) = ((?:__importDefault\(|__importStar\()?require\("([^"]+)"\)\)?);$/gm, (line, keyword: string, name: string, expression: string, specifier: string) => {
          if (specifier.startsWith('node:') && !deferredBuiltins.has(specifier)) return line
          deferred += 1
          return `${keyword} ${name} = __deferred(() => ${expression});`
        })
        .replace(/^exports\.([\w$]+) = (__importStar\(require\("[^"]+"\)\));$/gm, (_, name: string, expression: string) => {
          deferred += 1
          return `{ let m; Object.defineProperty(exports, ${JSON.stringify(name)}, {enumerable: true, configurable: true, get: () => (m ??= ${expression})}); }`
        })
      return {contents: deferred > 0 ? helper + text : text, loader: 'js'}
    })
    esbuild.onEnd(() => {
      const missed = oclifPatches.filter((patch) => !applied.has(patch.file))
      if (missed.length > 0) throw new Error(`bundle: oclif's ${missed.map((patch) => patch.file).join(', ')} was not bundled`)
    })
  },
}

/** Defines `require` at the top of every output file, for the CommonJS code bundled into it. */
const requireBanner = 'const require=process.getBuiltinModule("node:module").createRequire(import.meta.url);'
const builtinModules = new Set(createRequire(import.meta.url)('node:module').builtinModules as string[])

/** The name of the Node module (`fs`, `fs/promises`) a static import or re-export names, or null for any other. */
function builtinNamedBy(statement: ts.Statement): string | null {
  if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || statement.moduleSpecifier === undefined) return null
  const name = (statement.moduleSpecifier as ts.StringLiteral).text.replace(/^node:/, '')
  return builtinModules.has(name) ? name : null
}

/**
 * Takes Node's own modules in every output file from `process.getBuiltinModule`, at the top of the file,
 * instead of by `import`, and drops the `require` banner from files that never call it. An ES module
 * import of one of Node's modules makes Node build a facade of the module that reads every export it has,
 * which loads what the module otherwise loads on first use (`node:crypto` loads Web Crypto, `node:util` its
 * argument parser and MIME types). The bindings are the same values, bound before any code of the file runs
 * as an import's are (imports are hoisted; the constants are put first), and the exports of Node's modules
 * never change. Fails the build when a file re-exports one of Node's modules (`export … from "node:…"`,
 * which this does not rewrite) or no longer parses. A dynamic `import("node:…")` is left as it is: it
 * builds its facade only when it runs (one rule of the credential set holds two, and never runs here).
 */
function takeBuiltinsWithoutFacades(built: Metafile): void {
  for (const output of Object.keys(built.outputs).filter((file) => file.endsWith(moduleExtension))) {
    const file = path.join(root, output)
    const text = readFileSync(file, 'utf8')
    if (!text.startsWith(requireBanner)) throw new Error(`bundle: ${output} does not begin with the require banner`)
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS)
    const taken: string[] = []
    let body = ''
    let at = requireBanner.length
    for (const statement of source.statements) {
      const name = builtinNamedBy(statement)
      if (name === null) continue
      if (!ts.isImportDeclaration(statement)) throw new Error(`bundle: ${output} re-exports one of Node's modules, which builds its facade: ${statement.getText(source)}`)
      const module = `process.getBuiltinModule(${JSON.stringify(`node:${name}`)})`
      const clause = statement.importClause
      const bindings: string[] = []
      if (clause?.name !== undefined) bindings.push(`${clause.name.text}=${module}`)
      const named = clause?.namedBindings
      if (named !== undefined && ts.isNamespaceImport(named)) bindings.push(`${named.name.text}=${module}`)
      if (named !== undefined && ts.isNamedImports(named)) {
        bindings.push(`{${named.elements.map((element) => (element.propertyName === undefined ? element.name.text : `${element.propertyName.text}:${element.name.text}`)).join(',')}}=${module}`)
      }
      taken.push(bindings.length === 0 ? `${module};` : `const ${bindings.join(',')};`)
      body += text.slice(at, statement.getStart(source))
      at = statement.getEnd()
    }
    body += text.slice(at)
    const rewritten = (/\brequire\b/.test(body) ? requireBanner : '') + taken.join('') + body
    try {
      transformSync(rewritten, {loader: 'js', format: 'esm', logLevel: 'silent'})
    } catch (error) {
      throw new Error(`bundle: ${output} no longer parses once it takes Node's modules without importing them: ${(error as Error).message}`)
    }
    if (rewritten !== text) writeFileSync(file, rewritten)
  }
}

rmSync(outdir, {recursive: true, force: true})
rmSync(typesDir, {recursive: true, force: true})
rmSync(manifestFile, {force: true})

const commandEntries = Object.fromEntries(Object.keys(COMMANDS).map((id) => [path.join('cli', 'commands', ...id.split(':')), path.join(root, 'commands', `${id.split(':').join('/')}.ts`)]))
const {metafile} = await build({
  entryPoints: {
    ...Object.fromEntries(Object.entries(libraryEntries).map(([name, file]) => [name, path.join(root, file)])),
    'cli/main': path.join(root, 'commands', 'main.ts'),
    'cli/hooks/unknown-command': path.join(root, 'commands', 'unknown-command.ts'),
    ...commandEntries,
    // The workers, which the modules starting them find beside themselves (checked below).
    ...Object.fromEntries(workers.map((worker) => [path.join('chunks', worker.name), path.join(root, worker.source)])),
  },
  absWorkingDir: root,
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: {'.js': moduleExtension},
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  // Packages that ship an ES module build: use it (smaller, and shaken).
  mainFields: ['module', 'main'],
  // oclif can register TypeScript for plugins in development; a built command line never does.
  external: ['typescript', 'ts-node'],
  // CommonJS dependencies bundled into an ES module still call require() (see takeBuiltinsWithoutFacades).
  banner: {js: requireBanner},
  plugins: [importsFromDeclaringModules, startFastOclif, loadSeldomUsedOnDemand],
  metafile: true,
  logLevel: 'warning',
})
await bundleSeldomUsed()
// The module that loads the schema's compiled validator finds it beside itself.
const validatorHolders = Object.entries(metafile.outputs).filter(([, {inputs}]) => validatorSource in inputs)
if (validatorHolders.length === 0) throw new Error(`bundle: no output holds ${validatorSource}`)
for (const [output] of validatorHolders) copyFileSync(path.join(root, 'dist', 'src', 'manifest', generatedValidatorFile), path.join(root, path.dirname(output), generatedValidatorFile))
for (const {starter} of workers) {
  const starters = Object.entries(metafile.outputs).filter(([, {inputs}]) => starter in inputs)
  const misplaced = starters.filter(([output]) => path.dirname(output) !== path.join('dist', 'bundle', 'chunks'))
  if (starters.length === 0 || misplaced.length > 0) throw new Error(`bundle: ${starter} must be in dist/bundle/chunks/, beside its worker, not in ${misplaced.map(([output]) => output).join(', ')}`)
}
takeBuiltinsWithoutFacades(metafile)
checkLibraryLoads(metafile)
writeFileSync(contentsFile, `${JSON.stringify(describeOutputs(metafile), null, 2)}\n`)
copyPublicDeclarations()

// Loading the configuration without a manifest loads every bundled command: it proves each one loads, and
// yields the manifest (ids, flags, help) that lets `svc-plugin <command>` load that command alone.
const config = await Config.load({root})
// The root plugin holds the manifest it computed (the public type does not show it).
const manifest = (config.getPluginsList().find((candidate) => candidate.root === root) as unknown as {manifest?: Interfaces.Manifest} | undefined)?.manifest
if (manifest === undefined) throw new Error('bundle: the command line did not load')
const ids = Object.keys(manifest.commands).sort()
const expected = Object.keys(COMMANDS).sort()
if (ids.join() !== expected.join()) throw new Error(`bundle: the command line holds commands ${ids.join(', ')}, expected ${expected.join(', ')}`)
writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)
process.stderr.write(`bundled the library and the command line (${ids.length} commands) into ${path.relative(process.cwd(), outdir)}\n`)

/**
 * What each output file holds, by its path under dist/bundle: the packages (`@oclif/core`) and the source
 * folders (`src/install`, `commands`) whose code is in it.
 */
function describeOutputs(built: Metafile): Record<string, string[]> {
  const described: Record<string, string[]> = {}
  for (const [output, {inputs}] of Object.entries(built.outputs)) {
    const holds = new Set<string>()
    for (const [input, {bytesInOutput}] of Object.entries(inputs)) {
      if (bytesInOutput === 0) continue
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1]
      holds.add(pkg ?? (input.startsWith('commands/') ? 'commands' : path.dirname(input)))
    }
    described[path.relative(outdir, path.join(root, output))] = [...holds].sort()
  }
  return described
}

/**
 * Fails the build when a library entry can load, without a call that asks for it, the command line or a
 * package that only some calls need: what `import 'svc-plugin'` loads is that entry and the chunks it
 * imports statically.
 */
function checkLibraryLoads(built: Metafile): void {
  const outputOf = (file: string) => path.relative(root, path.join(outdir, file))
  for (const entry of Object.keys(libraryEntries)) {
    const loaded = new Set<string>()
    const pending = [outputOf(`${entry}${moduleExtension}`)]
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (loaded.has(file)) continue
      loaded.add(file)
      for (const imported of built.outputs[file]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path)
    }
    for (const file of loaded) {
      const forbidden = Object.keys(built.outputs[file]?.inputs ?? {}).find((input) => /node_modules\/(@oclif|@secretlint|fast-glob)\//.test(input) || input.startsWith('commands/'))
      if (forbidden !== undefined) throw new Error(`bundle: ${entry}${moduleExtension} loads ${file}, which holds ${forbidden}`)
    }
  }
}

/**
 * Copies into dist/types/ the declarations of dist/src that the public entries reach (what a host's
 * compiler reads), leaving out those of modules no public type mentions.
 */
function copyPublicDeclarations(): void {
  const sources = path.join(root, 'dist', 'src')
  const entries = Object.values(libraryEntries).map((file) => path.join(sources, path.relative('src', file).replace(/\.ts$/, '.d.ts')))
  const program = ts.createProgram(entries, {module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, noEmit: true, types: []})
  const declarations = program.getSourceFiles().map((file) => file.fileName).filter((file) => file.startsWith(`${sources}${path.sep}`) || file.startsWith(`${sources}/`))
  for (const file of declarations) {
    const target = path.join(typesDir, path.relative(sources, file))
    mkdirSync(path.dirname(target), {recursive: true})
    copyFileSync(file, target)
  }
}
