import {readFileSync} from 'node:fs'
import type {Action, ActionInput} from './actions/action.js'
import {prepareCommandProcess} from './command-process.js'
import {reportThrown} from './failure.js'
import {readFlagValue, type FlagValue} from './flag-values.js'
import {CommandOutput} from './output.js'

/**
 * The direct path: a command runs its action (commands/actions/) without loading oclif when its command line
 * is plain: known flags given once each as `--name value`, `--name=value`, `-c value` or `--no-name`, no
 * help, no flag that depends on or excludes another or whose value the command parses with a function of
 * its own (a word list, a range or a count is read by the function oclif's parser uses,
 * commands/flag-values.ts). Anything else goes to oclif, which parses it and reports what is wrong the one
 * way the command line does; so does `help`, which is oclif's. The flags are read from `oclif.manifest.json`,
 * which the build writes from the command classes, so they are defined once; loading oclif costs more than
 * the rest of a `verify` of a small artifact.
 */
const actions: Readonly<Record<string, () => Promise<Action<never>>>> = {
  validate: async () => (await import('./actions/validate.js')).validateCommand,
  pack: async () => (await import('./actions/pack.js')).packCommand,
  inspect: async () => (await import('./actions/inspect.js')).inspectCommand,
  verify: async () => (await import('./actions/verify.js')).verifyCommand,
  sign: async () => (await import('./actions/sign.js')).signCommand,
  merge: async () => (await import('./actions/merge.js')).mergeCommand,
  init: async () => (await import('./actions/init.js')).initCommand,
  dev: async () => (await import('./actions/dev.js')).devCommand,
  schema: async () => (await import('./actions/schema.js')).schemaCommand,
  keygen: async () => (await import('./actions/keygen.js')).keygenCommand,
  'cert:root': async () => (await import('./actions/cert/root.js')).certRootCommand,
  'cert:issue': async () => (await import('./actions/cert/issue.js')).certIssueCommand,
  'cert:revoke': async () => (await import('./actions/cert/revoke.js')).certRevokeCommand,
  'store:verify': async () => (await import('./actions/store/verify.js')).storeVerifyCommand,
  list: async () => (await import('./actions/list.js')).listCommand,
  activate: async () => (await import('./actions/activate.js')).activateCommand,
  uninstall: async () => (await import('./actions/uninstall.js')).uninstallCommand,
  install: async () => (await import('./actions/install.js')).installCommand,
}

/** The commands the direct path can run (`cert:root` is `svc-plugin cert root`). */
export const directCommandIds: readonly string[] = Object.keys(actions)

/** A flag as the manifest describes it (the fields the direct path reads). */
interface ManifestFlag {
  readonly type: 'boolean' | 'option'
  /** The build marks a flag whose value the command parses with a function of its own. */
  readonly custom?: boolean
  /** How the value is read when a function of commands/flag-values.ts reads it (a word list, a range, a count). */
  readonly valueKind?: FlagValue
  /** The default the command gets (`default` is what help shows, `1-3`, and a boolean has none). */
  readonly valueDefault?: unknown
  readonly char?: string
  readonly env?: string
  readonly required?: boolean
  readonly multiple?: boolean
  readonly default?: unknown
  readonly options?: readonly string[]
  readonly allowNo?: boolean
  readonly deprecated?: unknown
  readonly aliases?: readonly string[]
  readonly charAliases?: readonly string[]
  readonly dependsOn?: readonly string[]
  readonly exclusive?: readonly string[]
  readonly exactlyOne?: readonly string[]
  readonly relationships?: readonly unknown[]
}

/** A command as the manifest describes it. */
export interface ManifestCommand {
  readonly flags: Readonly<Record<string, ManifestFlag>>
  readonly args: Readonly<Record<string, {readonly required?: boolean; readonly default?: unknown; readonly options?: readonly string[]; readonly custom?: boolean}>>
  readonly strict?: boolean
  readonly advice?: Readonly<Record<string, string>>
  /** `deprecated` makes oclif warn before the command runs. */
  readonly state?: string
  /** oclif prints what such a command's `run` returns, as JSON. */
  readonly enableJsonFlag?: boolean
}

/**
 * Runs `argv` (the arguments after the program) on the direct path when it can, and says whether it did;
 * `false` hands the command line to oclif untouched. `root` is the package root, where the manifest is.
 */
export async function runDirectly(argv: readonly string[], root: URL): Promise<boolean> {
  // A topic command is named by two words (`cert root`) or by its id (`cert:root`).
  const [first, second] = argv
  const topic = second === undefined ? undefined : `${first}:${second}`
  const id = topic !== undefined && Object.hasOwn(actions, topic) ? topic : first
  const rest = argv.slice(id === topic ? 2 : 1)
  if (id === undefined || !Object.hasOwn(actions, id)) return false
  // Debugging output is oclif's: leave it to oclif. So is the warning it prints when the working directory is gone.
  if (process.env.SVC_PLUGIN_DEBUG !== undefined || process.env.DEBUG !== undefined || !workingDirectoryExists()) return false
  const manifest = readManifest(root)
  const command = manifest === undefined ? undefined : commandOf(manifest, id)
  const input = command === undefined ? undefined : parseOrUndefined(rest, command)
  if (manifest === undefined || command === undefined || input === undefined) return false
  prepareCommandProcess()
  ignoreClosedStdout()
  let json = input.flags.json === true
  const context = {output: new CommandOutput({quiet: input.flags.quiet === true, noColor: input.flags['no-color'] === true}), version: manifest.version, reportFailuresAsJson: () => (json = true)}
  try {
    const action = await (actions[id] as (typeof actions)[string])()
    process.exitCode = await action(input as never, context)
  } catch (error) {
    process.exitCode = reportThrown(error, {json, commandId: id, advice: command.advice})
  }
  return true
}

/**
 * The manifest the build wrote (`oclif.manifest.json`); `undefined` when there is none to read, or when it
 * is not of this version of the package (a manifest left from another build, which oclif does not read
 * either: it warns and loads the commands themselves).
 */
function readManifest(root: URL): {version: string; commands?: unknown} | undefined {
  try {
    const read = (file: string) => JSON.parse(readFileSync(new URL(file, root), 'utf8')) as {version?: unknown; commands?: unknown} | null
    const manifest = read('oclif.manifest.json')
    const version = manifest?.version
    return typeof version === 'string' && version === read('package.json')?.version ? {...manifest, version} : undefined
  } catch {
    return undefined
  }
}

/**
 * The command `id` as the manifest describes it; `undefined` when the manifest holds no such command, or
 * when oclif does more than parse its command line and run it (a warning that it is deprecated, a JSON
 * result of its own).
 */
function commandOf(manifest: {commands?: unknown}, id: string): ManifestCommand | undefined {
  const {commands} = manifest
  if (typeof commands !== 'object' || commands === null || !Object.hasOwn(commands, id)) return undefined
  const command = (commands as Record<string, unknown>)[id] as Partial<ManifestCommand> | null
  const isRecord = (value: unknown) => typeof value === 'object' && value !== null
  if (!isRecord(command) || !isRecord(command?.flags) || !isRecord(command?.args)) return undefined
  return command?.state === 'deprecated' || command?.enableJsonFlag === true ? undefined : (command as ManifestCommand)
}

/**
 * {@link parsePlainCommandLine}, or `undefined` when the manifest's description of the command is not one
 * it can read (a damaged manifest): oclif then reads the command line, and reports what is wrong.
 */
function parseOrUndefined(argv: readonly string[], command: ManifestCommand): ActionInput | undefined {
  try {
    return parsePlainCommandLine(argv, command)
  } catch {
    return undefined
  }
}

/** Whether the working directory still exists (`process.cwd()` fails when it was removed). */
function workingDirectoryExists(): boolean {
  try {
    process.cwd()
    return true
  } catch {
    return false
  }
}

/**
 * A reader that stops early (`svc-plugin schema | head -c 100`) is no failure of the command, as with oclif,
 * which ignores the broken pipe and keeps the command's exit status: without this, node reports it with a stack.
 */
function ignoreClosedStdout(): void {
  if (!process.stdout.listeners('error').includes(ignoreBrokenPipe)) process.stdout.on('error', ignoreBrokenPipe)
}

function ignoreBrokenPipe(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error
}

/**
 * Parses a plain command line the way oclif would, or gives `undefined` for anything that is not plain or
 * not valid, so that oclif parses it and reports the problem: an unknown, repeated or negated flag, a value
 * that is missing, empty or starts with `-`, `--`, `-` or a bundle of short flags, too many arguments, a
 * required flag or argument missing, a flag whose value the command parses itself, with a fixed list of
 * values, several values, a deprecation or a relationship to other flags.
 */
export function parsePlainCommandLine(argv: readonly string[], command: ManifestCommand): ActionInput | undefined {
  const byChar = new Map(Object.entries(command.flags).flatMap(([name, flag]) => (flag.char === undefined ? [] : [[flag.char, name] as const])))
  const given = new Map<string, string | boolean>()
  const positionals: string[] = []
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index] as string
    if (!token.startsWith('-')) {
      positionals.push(token)
      continue
    }
    const long = token.startsWith('--')
    const equals = long ? token.indexOf('=') : -1
    let name = long ? token.slice(2, equals === -1 ? undefined : equals) : token.length === 2 ? byChar.get(token.slice(1)) : undefined
    // `--no-activate` turns off a boolean flag that allows it (a flag named `no-color` is itself).
    const negated = name !== undefined && long && !Object.hasOwn(command.flags, name) && name.startsWith('no-') && command.flags[name.slice(3)]?.allowNo === true
    if (negated) name = (name as string).slice(3)
    if (name === undefined || !Object.hasOwn(command.flags, name) || given.has(name)) return undefined
    const flag = command.flags[name] as ManifestFlag
    if (flag.type === 'boolean') {
      if (equals !== -1) return undefined
      given.set(name, !negated)
    } else {
      const value = equals === -1 ? argv[++index] : token.slice(equals + 1)
      if (value === undefined || value === '' || value.startsWith('-')) return undefined
      given.set(name, value)
    }
  }
  const flags: Record<string, unknown> = {}
  for (const [name, flag] of Object.entries(command.flags)) {
    const fromEnvironment = flag.env === undefined ? undefined : process.env[flag.env]
    const value = given.get(name) ?? (fromEnvironment === undefined || fromEnvironment === '' ? undefined : fromEnvironment)
    if (value !== undefined) {
      if (!isPlain(flag) || (flag.type === 'boolean' && typeof value !== 'boolean')) return undefined
      const read = flag.valueKind === undefined || typeof value !== 'string' ? value : readFlagValue(flag.valueKind, value)
      if (read === undefined) return undefined
      flags[name] = read
    } else if (flag.required === true) {
      return undefined
    } else if (flag.valueDefault !== undefined) {
      flags[name] = flag.valueDefault
    } else if (flag.default !== undefined) {
      if (flag.custom === true || typeof flag.default !== (flag.type === 'boolean' ? 'boolean' : 'string')) return undefined
      flags[name] = flag.default
    }
  }
  const argumentSpecs = Object.entries(command.args)
  if (positionals.length > argumentSpecs.length && command.strict !== false) return undefined
  const args: Record<string, string | undefined> = {}
  const defaulted: string[] = []
  for (const [position, [name, spec]] of argumentSpecs.entries()) {
    const value = positionals[position]
    if (value !== undefined) {
      if (spec.custom === true || spec.options !== undefined) return undefined
      args[name] = value
    } else if (spec.required === true) {
      return undefined
    } else if (spec.default !== undefined) {
      if (typeof spec.default !== 'string') return undefined
      args[name] = spec.default
      defaulted.push(spec.default)
    }
  }
  // oclif gives the positionals in the order of each one's first appearance on the command line, flag
  // values included (`validate a b a` gives a, a, b): a command that takes any number of them sees that
  // order; then the default of each argument not given.
  const order = (token: string) => argv.indexOf(token)
  return {args, flags, argv: [...[...positionals].sort((a, b) => order(a) - order(b)), ...defaulted]}
}

/** A flag the direct path takes as it is: one value, any value, no relationship to other flags. */
function isPlain(flag: ManifestFlag): boolean {
  return (
    flag.custom !== true &&
    flag.multiple !== true &&
    flag.options === undefined &&
    flag.deprecated === undefined &&
    (flag.aliases ?? []).length === 0 &&
    (flag.charAliases ?? []).length === 0 &&
    (flag.dependsOn ?? []).length === 0 &&
    (flag.exclusive ?? []).length === 0 &&
    (flag.exactlyOne ?? []).length === 0 &&
    (flag.relationships ?? []).length === 0
  )
}
