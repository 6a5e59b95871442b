/**
 * Build step: bundles the command line into `dist/cli/` so that it starts fast. Each command becomes one
 * module under `dist/cli/commands/` (oclif finds the command for the arguments through `oclif.manifest.json`
 * and loads only that module); the code they share, the library and their dependencies included, goes to
 * `dist/cli/chunks/`, and what only some paths need (the credential rules, Ajv) is loaded on first use.
 * Loading one bundled file costs a fraction of resolving and reading hundreds of small modules.
 *
 * The library (`dist/src`) is not bundled: a host imports it as it is. The unbundled commands
 * (`dist/commands`) stay too: the tests run them in-process.
 */
import {copyFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {Args, Config, Flags, type Interfaces} from '@oclif/core'
import {build, type Metafile} from 'esbuild'
import {COMMANDS} from '../commands/index.js'
import {generatedValidatorFile} from '../src/manifest/schema-validator.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const outdir = path.join(root, 'dist', 'cli')
const manifestFile = path.join(root, 'oclif.manifest.json')

rmSync(outdir, {recursive: true, force: true})
rmSync(manifestFile, {force: true})

const commandEntries = Object.fromEntries(Object.keys(COMMANDS).map((id) => {
  const file = path.join('commands', ...id.split(':'))
  return [file, path.join(root, `${file}.ts`)]
}))
/** The module that loads the manifest schema's compiled validator from beside itself. */
const validatorSource = path.join('src', 'manifest', 'schema-validator.ts')

/**
 * Bundles `entryPoints` into `outdir` (shared code in `chunks/`) and puts the manifest schema's compiled
 * validator beside the module that loads it, when the bundle holds that module.
 */
async function bundle(entryPoints: Record<string, string>, outdir: string): Promise<Metafile> {
  const {metafile} = await build({
    entryPoints,
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    // Packages that ship an ES module build: use it (smaller, and shaken).
    mainFields: ['module', 'main'],
    // oclif can register TypeScript for plugins in development; a built CLI never does.
    external: ['typescript', 'ts-node'],
    // CommonJS dependencies bundled into an ES module still call require() for node's built-ins.
    banner: {js: "import {createRequire as __createRequire} from 'node:module';const require=__createRequire(import.meta.url);"},
    metafile: true,
    logLevel: 'warning',
  })
  for (const [output, {inputs}] of Object.entries(metafile.outputs)) {
    if (validatorSource in inputs) copyFileSync(path.join(root, 'dist', 'src', 'manifest', generatedValidatorFile), path.join(root, path.dirname(output), generatedValidatorFile))
  }
  return metafile
}

const cli = await bundle({main: path.join(root, 'commands', 'main.ts'), ...commandEntries}, outdir)
if (!Object.values(cli.outputs).some(({inputs}) => validatorSource in inputs)) throw new Error(`bundle-cli: no output holds ${validatorSource}`)

// The direct path (commands that run without oclif when their command line is plain) is a bundle of its
// own: sharing chunks with the commands would make it load the whole library, since every command reaches
// it through src/index.ts. Nothing it can load, statically or on demand, may hold oclif.
const direct = await bundle({direct: path.join(root, 'commands', 'direct.ts')}, path.join(outdir, 'direct'))
const oclifInDirect = Object.values(direct.outputs).flatMap(({inputs}) => Object.keys(inputs).filter((input) => input.includes('node_modules/@oclif/')))
if (oclifInDirect.length > 0) throw new Error(`bundle-cli: the direct path can load oclif (${oclifInDirect[0]})`)

// Loading the configuration without a manifest loads every bundled command: it proves each one loads, and
// yields the manifest (ids, flags, help) that lets `svc-plugin <command>` load that command alone.
const config = await Config.load({root})
// The root plugin holds the manifest it computed (the public type does not show it).
const manifest = (config.getPluginsList().find((candidate) => candidate.root === root) as unknown as {manifest?: Interfaces.Manifest} | undefined)?.manifest
if (manifest === undefined) throw new Error('bundle-cli: the command line did not load')
const ids = Object.keys(manifest.commands).sort()
const expected = Object.keys(COMMANDS).sort()
if (ids.join() !== expected.join()) throw new Error(`bundle-cli: the bundle holds commands ${ids.join(', ')}, expected ${expected.join(', ')}`)
describeFlagValues(manifest)
writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)
process.stderr.write(`bundled the command line into ${path.relative(process.cwd(), outdir)} (${ids.length} commands)\n`)

/**
 * Copies into the manifest the `valueKind` of each flag whose value is read by a function of
 * commands/flag-values.ts (a word list, a protocol range, a count), which the direct path (commands/direct.ts)
 * applies as oclif's parser does; marks `custom: true` on any other flag or argument whose value the command
 * parses with its own function, which the direct path leaves to oclif; and records as `valueDefault` each
 * default as the command gets it (the manifest's `default` is what help shows, and a boolean has none).
 */
function describeFlagValues(computed: Interfaces.Manifest): void {
  const plainParse = {option: String(Flags.string().parse), boolean: String(Flags.boolean().parse), argument: String(Args.string().parse)}
  for (const [id, command] of Object.entries(COMMANDS)) {
    const manifestCommand = computed.commands[id]
    if (manifestCommand === undefined) continue
    const flags: Record<string, {parse?: unknown; valueKind?: unknown; default?: unknown}> = {...(command as {baseFlags?: object}).baseFlags, ...command.flags}
    for (const [name, flag] of Object.entries(manifestCommand.flags)) {
      const {parse, valueKind, default: value} = flags[name] ?? {}
      if (valueKind !== undefined) Object.assign(flag, {valueKind})
      else if (parse !== undefined && String(parse) !== plainParse[flag.type]) Object.assign(flag, {custom: true})
      // The manifest's own `default` is what help shows (`1-3`), and a boolean's is not recorded at all: the
      // value the command gets is this one.
      if (value !== undefined && typeof value !== 'function') Object.assign(flag, {valueDefault: value})
    }
    const args: Record<string, {parse?: unknown}> = command.args ?? {}
    for (const [name, arg] of Object.entries(manifestCommand.args)) {
      const parse = args[name]?.parse
      if (parse !== undefined && String(parse) !== plainParse.argument) (arg as {custom?: boolean}).custom = true
    }
  }
}
