import {readFileSync} from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import {repoRoot} from '../helpers/cli.js'

/**
 * The type checker over the command line's sources, able to check an action against a changed command
 * class: what the compiler would say of `commands/actions/<id>.ts` if `commands/<id>.ts` read otherwise.
 * The first program is built once; each changed one reuses every file that did not change.
 */
export class ActionTypecheck {
  private readonly options: ts.CompilerOptions
  private readonly host: ts.CompilerHost
  private readonly base: ts.Program
  private readonly rootNames: string[]
  private readonly changed = new Map<string, string>()

  constructor() {
    const config = ts.getParsedCommandLineOfConfigFile(path.join(repoRoot, 'tsconfig.json'), {}, {...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined})
    if (config === undefined) throw new Error('tsconfig.json cannot be read')
    this.options = {...config.options, noEmit: true, incremental: false}
    this.rootNames = config.fileNames.filter((file) => file.includes(`${path.sep}commands${path.sep}`))
    const host = ts.createCompilerHost(this.options, true)
    const getSourceFile = host.getSourceFile.bind(host)
    const cache = new Map<string, ts.SourceFile | undefined>()
    host.getSourceFile = (file, language, onError) => {
      const text = this.changed.get(path.resolve(file))
      if (text !== undefined) return ts.createSourceFile(file, text, language, true)
      if (!cache.has(file)) cache.set(file, getSourceFile(file, language, onError))
      return cache.get(file)
    }
    this.host = host
    this.base = ts.createProgram({rootNames: this.rootNames, options: this.options, host})
  }

  /** The compiler's errors in the action of command `id` (`cert:root`) as the sources are. */
  errors(id: string): string[] {
    return this.errorsIn(this.base, id)
  }

  /** The compiler's errors in the action of command `id` when its command class has `find` replaced by `replace`. */
  errorsWith(id: string, find: string | RegExp, replace: string): string[] {
    return this.errorsInWith(commandFile(id), find, replace, actionFile(id))
  }

  /** The compiler's errors in `checked` when `file` has `find` replaced by `replace`. */
  errorsInWith(file: string, find: string | RegExp, replace: string, checked: string): string[] {
    const text = readFileSync(file, 'utf8')
    const changed = text.replace(find, replace)
    if (changed === text) throw new Error(`${path.relative(repoRoot, file)} holds no ${String(find)}`)
    this.changed.set(file, changed)
    try {
      return this.errorsIn(ts.createProgram({rootNames: this.rootNames, options: this.options, host: this.host, oldProgram: this.base}), checked)
    } finally {
      this.changed.delete(file)
    }
  }

  private errorsIn(program: ts.Program, idOrFile: string): string[] {
    const source = program.getSourceFile(idOrFile.endsWith('.ts') ? idOrFile : actionFile(idOrFile))
    if (source === undefined) throw new Error(`no source for ${idOrFile}`)
    return program.getSemanticDiagnostics(source).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
  }
}

/** The source of command `id`'s class. */
export function commandFile(id: string): string {
  return path.join(repoRoot, 'commands', `${id.replaceAll(':', '/')}.ts`)
}

/** The source of command `id`'s action. */
export function actionFile(id: string): string {
  return path.join(repoRoot, 'commands', 'actions', `${id.replaceAll(':', '/')}.ts`)
}

/**
 * The declaration of flag `name` in a command's source, as a pattern matching its key (`force:` or
 * `'dry-run':`) at the start of a line of the `flags` object.
 */
export function flagKey(name: string): RegExp {
  const key = /^[a-z]+$/.test(name) ? name : `'${name}'`
  return new RegExp(`^(\\s+)${key.replace(/[-]/g, '\\-')}:`, 'm')
}

/**
 * Whether the action of `id` names `name` at all, as an identifier or a string (a flag it never names is
 * one it does not read, and renaming it changes nothing the action relies on).
 */
export function actionNames(id: string, name: string): boolean {
  const source = ts.createSourceFile(actionFile(id), readFileSync(actionFile(id), 'utf8'), ts.ScriptTarget.ES2022, true)
  let found = false
  const visit = (node: ts.Node): void => {
    if ((ts.isIdentifier(node) || ts.isStringLiteral(node)) && node.text === name) found = true
    if (!found) ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}
