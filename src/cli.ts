/**
 * The private entry of svc-plugin's own command line (`#cli` in package.json's `imports`; no other package
 * can import it): the three public entries, and what only the command line needs besides them (colour and
 * the escaping of what it prints, the files of the code pages, glob patterns, the repository root, the
 * GitHub step summary, removing half-written files on Ctrl-C, counts and sizes in words).
 */
export * from './index.js'
export * from './store.js'
export * from './tooling.js'

export {colorEnabled, renderStepSummary, codePageFile, codePagesFolder, type ColorContext} from './report/index.js'
export {subjectsTextLines, textLines, jsonText, withoutInvisibleCharacters, type TextLine} from './report/index.js'
export {visibleText, shellCommand} from './model/index.js'
export {uploadTextLines} from './store/render.js'
export {isGlobPattern} from './validate/validate-paths.js'
export {findRepositoryRoot} from './fs/repository-root.js'
export {removeTemporaryFilesSync} from './fs/temporary-files.js'
export {plural, formatMiB} from './quantities.js'
