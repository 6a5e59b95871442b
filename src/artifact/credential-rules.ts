import {KeywordScan} from './keyword-scan.js'
import type {FileText} from './text-encoding.js'

/**
 * The credential rules of secretlint's maintained recommended set, and what makes them cheap on clean text:
 * each rule runs only on a file whose text holds one of its keywords — a string every finding of the rule
 * contains — found in one pass over the text (the keyword prefilter gitleaks uses). The rules themselves run
 * here as secretlint runs them for one file (the same source, the same reports, the same comment filter, the
 * same order), so a file yields exactly the messages secretlint's `lintSource` gives with every rule of the set.
 */

/** What a rule reports, as secretlint's `lintSource` gives it. */
export interface RuleMessage {
  ruleId: string
  messageId: string
  /** Start and end offsets in the text the rules were given, a leading byte order mark removed. */
  range: [number, number]
}

/**
 * A keyword of a rule: `words` (ASCII), one of which, in either case, is part of the text of every finding of
 * the rule on the files `files` accepts (all by default); where one is found, `confirm` (default: the words as
 * written) must match from its first character, with the rule's own flags, for the rule to run.
 */
interface Keyword {
  words: readonly string[]
  confirm?: string
  flags?: 'i'
  files?: (path: string) => boolean
}

// The npm rule reads `package.json` files for GitHub tokens in URLs and `.npmrc` files for auth tokens.
const isPackageFile = (path: string): boolean => path.endsWith('package.json') || path.endsWith('package-lock.json')
const isNpmrc = (path: string): boolean => !isPackageFile(path) && path.endsWith('.npmrc')

/**
 * The keywords of each rule of the set, from the rule's own expressions. Every rule of the set is listed (a test
 * compares the list with the set, so a newer set with a rule missing here fails the build's tests rather than
 * going unrun). A rule with no keyword never finds anything here:
 * the GCP rule judges `.json` and `.p12` files by an extension the scan does not give it (it would read the
 * `.p12` file from the working directory); a service account's JSON holds a PEM key, which the key header
 * check finds.
 */
const keywordsOfRule: Readonly<Record<string, readonly Keyword[]>> = {
  '@secretlint/secretlint-rule-aws': [{words: ['secretaccess', 'secret_access'], confirm: '(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)'}],
  '@secretlint/secretlint-rule-gcp': [],
  '@secretlint/secretlint-rule-privatekey': [{words: ['-----BEGIN']}],
  '@secretlint/secretlint-rule-npm': [{words: ['npm_']}, {words: [':x-oauth-basic@github'], files: isPackageFile}, {words: ['_authToken='], files: isNpmrc}],
  '@secretlint/secretlint-rule-basicauth': [{words: ['http://', 'https://', 'ftp://', 'ftps://'], confirm: '(?:https?|ftps?):\\/\\/[-a-zA-Z0-9_]{1,256}:'}],
  '@secretlint/secretlint-rule-slack': [
    {words: ['xoxb-', 'xoxp-', 'xapp-', 'xoxa-', 'xoxo-', 'xoxr-']},
    {words: ['https://hooks.slack.com/services/'], flags: 'i'},
  ],
  '@secretlint/secretlint-rule-sendgrid': [{words: ['SG.'], confirm: 'SG\\.\\w'}],
  '@secretlint/secretlint-rule-shopify': [{words: ['shppa_', 'shpca_', 'shpat_', 'shpss_']}],
  '@secretlint/secretlint-rule-github': [{words: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_']}],
  '@secretlint/secretlint-rule-openai': [{words: ['T3BlbkFJ']}],
  '@secretlint/secretlint-rule-anthropic': [{words: ['sk-ant-api0']}],
  '@secretlint/secretlint-rule-linear': [{words: ['lin_api_']}],
  '@secretlint/secretlint-rule-1password': [{words: ['ops_ey']}],
  '@secretlint/secretlint-rule-database-connection-string': [{words: ['mongodb://', 'mongodb+srv://', 'mysql://', 'mysqlx://', 'postgres://', 'postgresql://'], flags: 'i'}],
  // The comments that silence the other rules (`secretlint-disable`…): it only ever removes their findings.
  '@secretlint/secretlint-rule-filter-comments': [{words: ['secretlint-']}],
}

/** The rule that filters the others' findings by comments: run only beside another rule. */
const commentFilterId = '@secretlint/secretlint-rule-filter-comments'

/** A secretlint rule, as far as running it needs (the rule-author API of `@secretlint/types`). */
interface RuleCreator {
  meta: {id: string; supportedContentTypes: readonly string[]}
  create(context: RuleContext, options: object): {file?: (source: RuleSource) => void | Promise<void>}
}

/** What a rule is given: the rule context of `@secretlint/types`. */
interface RuleContext {
  sharedOptions: object
  createTranslator(messages: Record<string, MessageText>): (messageId: string, props?: Record<string, unknown>) => TranslatedMessage
  report(descriptor: {message: TranslatedMessage; range: [number, number]}): void
  ignore(descriptor: {message: TranslatedMessage; range: [number, number]; targetRuleId: string}): void
}

type MessageFormat = (props?: Record<string, unknown>) => string
type MessageText = MessageFormat | {en: MessageFormat}
interface TranslatedMessage {
  message: string
  messageId: string
}

/** The source a rule reads: secretlint's SourceCode for one text file. */
interface RuleSource {
  content: string
  filePath: string
  physicalFilePath: string
  ext: string
  contentType: 'text'
  hasBOM: boolean
  getFilePath(): string
  getPhysicalFilePath(): string
  indexToPosition(index: number): {line: number; column: number}
  positionToIndex(position: {line: number; column: number}): number
  locationToRange(location: {start: {line: number; column: number}; end: {line: number; column: number}}): [number, number]
  rangeToLocation(range: [number, number]): {start: {line: number; column: number}; end: {line: number; column: number}}
}

/** A word of the keyword scan: the rule it belongs to, and what must match where it starts. */
interface Word {
  rule: string
  confirm: RegExp
  files?: (path: string) => boolean
}

/** The keyword scan of every rule, built on first use from {@link keywordsOfRule} alone: it needs no rule loaded. */
let keywordScan: {words: readonly Word[]; scan: KeywordScan; rules: number} | undefined

/** The words of every rule's keywords, their scan, and how many rules have keywords. */
function keywordScanOfRules(): {words: readonly Word[]; scan: KeywordScan; rules: number} {
  if (keywordScan !== undefined) return keywordScan
  const words: (Word & {word: string})[] = []
  for (const [rule, keywords] of Object.entries(keywordsOfRule)) {
    for (const keyword of keywords) {
      const confirm = new RegExp(keyword.confirm ?? keyword.words.map(escapeRegExp).join('|'), `y${keyword.flags ?? ''}`)
      for (const word of keyword.words) words.push({word, rule, confirm, ...(keyword.files ? {files: keyword.files} : {})})
    }
  }
  keywordScan = {words, scan: new KeywordScan(words.map((entry) => entry.word)), rules: new Set(words.map((entry) => entry.rule)).size}
  return keywordScan
}

/**
 * The ids of the rules that must run on `text` (the file `path`): those with a keyword in the text, found in
 * one pass, without loading any rule. The comment filter counts only beside another rule; none, the usual
 * answer, means the text is clean and the rules need not be loaded at all.
 */
export function rulesFor(text: FileText, path: string): string[] {
  const {words, scan, rules} = keywordScanOfRules()
  // Made at the first keyword confirmed: clean text, the usual case, allocates nothing.
  let chosen: Set<string> | undefined
  // What `confirm` reads: the text, or UTF-8 bytes read as Latin-1, made once, where the first word is found.
  // A `confirm` expression matches only ASCII, and a byte that is not ASCII matches no ASCII character, as the
  // character it is part of does not; offsets in the bytes are offsets in that reading.
  let subject: string | undefined
  scan.scan(text.kind === 'utf-8' ? text.bytes : text.text, (index, start) => {
    const word = words[index]!
    if (chosen?.has(word.rule) === true || (word.files !== undefined && !word.files(path))) return false
    subject ??= text.kind === 'utf-8' ? text.bytes.toString('latin1') : text.text
    word.confirm.lastIndex = start
    if (!word.confirm.test(subject)) return false
    chosen ??= new Set()
    chosen.add(word.rule)
    return chosen.size === rules
  })
  if (chosen === undefined) return []
  return [...chosen].every((rule) => rule === commentFilterId) ? [] : [...chosen]
}

/** The ids of every rule of the set the keyword table knows, whether it has keywords or not (for the tests). */
export const ruleIds: readonly string[] = Object.keys(keywordsOfRule)

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
}

/** The rules of the set, loaded, ready to run on one file at a time. */
export class CredentialRules {
  readonly #creators: readonly RuleCreator[]

  constructor(creators: readonly RuleCreator[]) {
    this.#creators = creators
  }

  /** The messages of the rules `ids` (see {@link rulesFor}) on the file `path` holding `text`, as `lintSource` gives them. */
  run(ids: readonly string[], text: string, path: string): Promise<RuleMessage[]> {
    // In the set's own order, as secretlint runs them.
    return runRules(
      this.#creators.filter((creator) => ids.includes(creator.meta.id)),
      text,
      path,
    )
  }
}

let loading: Promise<CredentialRules> | undefined

/**
 * The rules of the maintained set, loaded on the first call: a package whose text holds no keyword, and a
 * command that never looks for secrets (verify, install), never load them.
 */
export function loadCredentialRules(): Promise<CredentialRules> {
  loading ??= import('@secretlint/secretlint-rule-preset-recommend').then(({rules}) => new CredentialRules(rules as unknown as RuleCreator[]))
  return loading
}

interface Ignored {
  range: [number, number]
  targetRuleId: string
}

/**
 * Runs `creators` on one text as secretlint's `lintSource` does: a leading byte order mark is not part of the
 * source, each rule reports in turn, then the findings a comment silences are dropped, of equal findings
 * the last kept, and the rest sorted by range.
 */
async function runRules(creators: readonly RuleCreator[], text: string, filePath: string): Promise<RuleMessage[]> {
  const source = ruleSource(text, filePath)
  const reported: (RuleMessage & {message: string})[] = []
  const ignored: Ignored[] = []
  const handlers = creators
    .filter((creator) => creator.meta.supportedContentTypes.includes('text') || creator.meta.supportedContentTypes.includes('all'))
    .map((creator) => {
      const ruleId = creator.meta.id
      const context: RuleContext = {
        sharedOptions: {},
        createTranslator: (messages) => (messageId, props) => {
          const text = messages[messageId]!
          const format = typeof text === 'function' ? text : text.en
          return {message: typeof props === 'object' && props !== null ? format(props) : format(), messageId}
        },
        report: ({message, range}) => reported.push({ruleId, messageId: message.messageId, message: message.message, range}),
        ignore: ({range, targetRuleId}) => ignored.push({range, targetRuleId}),
      }
      return creator.create(context, {})
    })
  await Promise.all(handlers.map((handler) => handler.file?.(source)))
  const kept = reported.filter((message) => !ignored.some((ignore) => silences(ignore, message)))
  const unique = kept.filter((message, index) => !kept.slice(index + 1).some((later) => later.range[0] === message.range[0] && later.range[1] === message.range[1] && later.message === message.message))
  return unique.sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]).map(({ruleId, messageId, range}) => ({ruleId, messageId, range}))
}

/** Whether a comment's ignore range silences a finding (both ends inside it, and the rule named or `*`). */
function silences(ignore: Ignored, message: RuleMessage): boolean {
  const [start, end] = ignore.range
  const inside = start <= message.range[0] && message.range[0] <= end && start <= message.range[1] && message.range[1] <= end
  return inside && (ignore.targetRuleId === '*' || ignore.targetRuleId === message.ruleId)
}

/** The source a rule reads, with lines as secretlint counts them (`\r\n`, `\r`, `\n`, U+2028, U+2029 end one). */
function ruleSource(text: string, filePath: string): RuleSource {
  const hasBOM = text.charCodeAt(0) === 0xfeff
  const content = hasBOM ? text.slice(1) : text
  let starts: number[] | undefined
  const lineStarts = (): number[] => (starts ??= lineStartsOf(content))
  const indexToPosition = (index: number) => {
    const all = lineStarts()
    let low = 0
    let high = all.length
    // The number of line starts at or before `index` is its 1-based line.
    while (low < high) {
      const middle = (low + high) >> 1
      if (all[middle]! <= index) low = middle + 1
      else high = middle
    }
    return {line: low, column: index - all[low - 1]!}
  }
  const positionToIndex = (position: {line: number; column: number}) => lineStarts()[position.line - 1]! + position.column
  return {
    content,
    filePath,
    physicalFilePath: filePath,
    ext: '',
    contentType: 'text',
    hasBOM,
    getFilePath: () => filePath,
    getPhysicalFilePath: () => filePath,
    indexToPosition,
    positionToIndex,
    locationToRange: (location) => [positionToIndex(location.start), positionToIndex(location.end)],
    rangeToLocation: (range) => ({start: indexToPosition(range[0]), end: indexToPosition(range[1])}),
  }
}

function lineStartsOf(content: string): number[] {
  const starts = [0]
  const terminator = /[\r\n\u2028\u2029]/g
  for (let match = terminator.exec(content); match !== null; match = terminator.exec(content)) {
    let index = match.index
    if (content.charCodeAt(index) === 0x0d && content.charCodeAt(index + 1) === 0x0a) index += 1
    starts.push(index + 1)
    terminator.lastIndex = index + 1
  }
  return starts
}
