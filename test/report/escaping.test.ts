import assert from 'node:assert/strict'
import {mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, describe, it} from 'node:test'
import fc from 'fast-check'
import {XMLParser, XMLValidator} from 'fast-xml-parser'
import {missingManifestAdvice} from '../../src/archive/foreign.js'
import {checkEntryPath} from '../../src/archive/path-policy.js'
import type {Diagnostic, Severity} from '../../src/manifest/diagnostic.js'
import type {SubjectResult} from '../../src/manifest/report.js'
import {shellCommand} from '../../src/model/shell-command.js'
import {showsAsItself, visibleText} from '../../src/model/visible-text.js'
import {renderGithub, renderStepSummary} from '../../src/report/github.js'
import {jsonText} from '../../src/report/json-text.js'
import {renderJunit} from '../../src/report/junit.js'
import {renderSubjects, reportFormats} from '../../src/report/render.js'
import {line, styled, textLines, type TextLine} from '../../src/report/text-lines.js'
import {renderUploadText} from '../../src/store/render.js'
import {hostileCharacters, hostileString, hostileText, parseWorkflowCommand, rawInvisibleCharacters, shellWords, unescapedMarkdown, workflowCommandLines} from '../helpers/hostile-text.js'
import {sampleCwd, samplePages, sampleReport} from './sample-reports.js'

// Each output kind's escaping, as a property over hostile strings (test/helpers/hostile-text.ts): what
// every renderer writes carries no raw control or invisible character, no workflow command it did not
// mean, and gives back, to the parser of its format, exactly the value shown visibly.

const runs = {numRuns: 150}
const severity: fc.Arbitrary<Severity> = fc.constantFrom('error', 'warning', 'info')
const hostileProblem: fc.Arbitrary<Diagnostic> = fc.record({
  code: fc.constantFrom('malformed', 'schema:additionalProperties', 'invalid-name', 'unknown-permission'),
  severity,
  message: hostileString,
  pointer: fc.option(hostileString, {nil: null}),
  line: fc.option(fc.integer({min: 1, max: 99}), {nil: null}),
  column: fc.option(fc.integer({min: 1, max: 99}), {nil: null}),
})
const hostileSubjects: fc.Arbitrary<SubjectResult[]> = fc.array(
  fc.oneof(
    fc.record({problems: fc.array(hostileProblem, {maxLength: 4}), folder: hostileString, id: fc.option(hostileString, {nil: null})}).map(({problems, folder, id}) =>
      sampleReport(problems, {pluginId: id, file: `${sampleCwd}/${folder}/manifest.json`, subject: {kind: 'manifest', path: `${sampleCwd}/${folder}/manifest.json`}}),
    ),
    fc.record({path: hostileString, message: hostileString}).map(({path: subject, message}): SubjectResult => ({path: subject, code: 'file-not-found', message, error: Object.assign(new Error(message), {code: 'file-not-found'})})),
  ),
  {minLength: 1, maxLength: 3},
)

/** Asserts what no output may hold; `commands` are the workflow command lines the renderer meant. */
function assertContained(output: string, commands: readonly string[] = []): void {
  assert.deepEqual(rawInvisibleCharacters(output), [], output)
  assert.deepEqual(workflowCommandLines(output), commands)
}

describe('text lines', () => {
  it('show every hostile character as a visible escape, one line per line given, and are idempotent', () => {
    for (const character of hostileCharacters) assert.notEqual(visibleText(character), character, `U+${character.codePointAt(0)?.toString(16)}`)
    fc.assert(
      fc.property(hostileString, (text) => {
        const shown = visibleText(text)
        assert.deepEqual(rawInvisibleCharacters(shown.replaceAll('\n', '\u0000')), shown.includes('\n') ? ['\u0000'] : [])
        assert.ok(!shown.includes('\n') && !shown.includes('##['))
        assert.equal(visibleText(shown), shown)
        assert.ok(showsAsItself(shown))
      }),
      runs,
    )
  })

  it('never begin with a workflow command, and carry colour only around the tool\'s own styled words', () => {
    const textLine: fc.Arbitrary<TextLine> = fc.oneof(
      hostileString,
      fc.array(fc.oneof(hostileString, fc.record({style: severity, text: hostileString})), {maxLength: 4}).map((parts) => line(...parts)),
    )
    fc.assert(
      fc.property(fc.array(textLine, {maxLength: 5}), fc.boolean(), (lines, color) => {
        const output = textLines(lines, {color})
        assert.equal(output.split('\n').length - 1, lines.length)
        const uncoloured = output.replace(/\u001b\[(?:31|33|36|39)m/g, '')
        assertContained(uncoloured)
        if (!color) assert.equal(uncoloured, output)
      }),
      runs,
    )
  })

  it('paint the styled part after escaping it', () => {
    assert.equal(textLines([line(styled('error', 'e\u001b[0m'), ' \u001b[2J')], {color: true}), '\u001b[31me\\u001b[0m\u001b[39m \\u001b[2J\n')
    assert.equal(textLines(['  ::add-mask::x', line('', ':', ':error::y'), '##[error]z'], {color: false}), '  \\u003a:add-mask::x\n\\u003a:error::y\n##\\u005berror]z\n')
  })

  it('are what the text report and the store report are made of', () => {
    fc.assert(
      fc.property(hostileSubjects, (subjects) => assertContained(renderSubjects(subjects, 'text', {cwd: sampleCwd, color: true}).replace(/\u001b\[(?:31|33|36|39)m/g, ''))),
      runs,
    )
    fc.assert(
      fc.property(fc.array(fc.record({code: fc.constant('publisher-mismatch' as const), severity, message: hostileString, pointer: hostileString}), {maxLength: 3}), hostileString, (problems, id) => {
        assertContained(renderUploadText({accepted: false, id, version: id, problems, verdict: 'Unsigned', certificateId: null}))
      }),
      runs,
    )
  })
})

describe('JSON', () => {
  it('gives back exactly the value, with no invisible character raw and no legacy command marker', () => {
    fc.assert(
      fc.property(fc.dictionary(hostileString.filter((key) => key !== '__proto__'), fc.oneof(hostileString, fc.array(hostileString, {maxLength: 3}))), (value) => {
        const text = jsonText(value)
        assertContained(text)
        assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)))
      }),
      runs,
    )
  })
})

describe('every report format', () => {
  it('holds nothing raw whatever the subjects (the github format only the commands it writes)', () => {
    fc.assert(
      fc.property(hostileSubjects, fc.constantFrom(...reportFormats), (subjects, format) => {
        const output = renderSubjects(subjects, format, {cwd: sampleCwd, codePages: samplePages})
        const meant = format === 'github' ? output.split('\n').filter((text) => text !== '') : []
        assertContained(output, meant)
      }),
      runs,
    )
  })
})

/** Where a problem of `file` is placed: relative to the root (here the working directory), or, outside it, the absolute path. */
function placedFile(file: string): string {
  const absolute = path.resolve(sampleCwd, file)
  const relative = path.relative(sampleCwd, absolute)
  return relative === '' || relative.startsWith('..') ? absolute : relative
}

describe('GitHub workflow commands', () => {
  it('are one command per problem, whose properties and message the runner reads back as shown visibly', () => {
    fc.assert(
      fc.property(hostileSubjects, (subjects) => {
        const lines = renderGithub(subjects, {cwd: sampleCwd, root: sampleCwd, codePages: samplePages}).split('\n').filter((text) => text !== '')
        const expected = subjects.flatMap((subject): Array<{command: string; file: string | undefined; data: string}> =>
          'problems' in subject
            ? subject.problems.map((problem) => ({command: ({error: 'error', warning: 'warning', info: 'notice'} as const)[problem.severity], file: visibleText(placedFile(subject.file)), data: visibleText(problem.message)}))
            : [{command: 'error', file: undefined, data: visibleText(`${subject.path}: ${subject.message}`)}],
        )
        assert.equal(lines.length, expected.length)
        lines.forEach((text, index) => {
          const parsed = parseWorkflowCommand(text)
          assert.ok(parsed !== null, text)
          assert.equal(parsed.command, expected[index]!.command)
          assert.equal(parsed.properties.file, expected[index]!.file)
          assert.equal(parsed.data, expected[index]!.data)
          assert.match(parsed.properties.title ?? '', /^[A-Za-z:-]+ \(https:\/\/github\.com\/example\/svc-plugin\/blob\/v1\.2\.3\/docs\/codes\/[A-Za-z-]+\.md\)$/)
        })
      }),
      runs,
    )
  })
})

describe('JUnit XML', () => {
  it('is well-formed, and its values read back as shown visibly', () => {
    const parser = new XMLParser({ignoreAttributes: false, attributeNamePrefix: '', trimValues: false, parseAttributeValue: false, parseTagValue: false, isArray: (name) => ['testsuite', 'testcase', 'failure'].includes(name)})
    fc.assert(
      fc.property(hostileSubjects, (subjects) => {
        const xml = renderJunit(subjects, {cwd: sampleCwd})
        assert.equal(XMLValidator.validate(xml), true, xml)
        type Case = {failure?: Array<{message: string}>; error?: {message: string}}
        const suites = parser.parse(xml).testsuites.testsuite as Array<{name: string; testcase: Case[]}>
        subjects.forEach((subject, index) => {
          const suite = suites[index]!
          if ('problems' in subject) {
            // One test case per problem, an error's with its one failure.
            if (subject.problems.length > 0) assert.equal(suite.testcase.length, subject.problems.length)
            const failures = suite.testcase.map((testcase) => (testcase.failure ?? []).map((failure) => failure.message))
            assert.deepEqual(failures, subject.problems.length === 0 ? [[]] : subject.problems.map((problem) => (problem.severity === 'error' ? [visibleText(problem.message)] : [])))
          } else {
            assert.equal(suite.name, visibleText(subject.path))
            assert.equal(suite.testcase[0]?.error?.message, visibleText(subject.message))
          }
        })
      }),
      runs,
    )
  })
})

describe('the step summary (Markdown)', () => {
  it('escapes every punctuation character of every value, so the only links are the tool\'s', () => {
    fc.assert(
      fc.property(hostileSubjects, (subjects) => {
        const summary = renderStepSummary(subjects, {cwd: sampleCwd, codePages: samplePages})
        assertContained(summary)
        assert.deepEqual(unescapedMarkdown(summary), [])
        const rows = summary.split('\n').filter((text) => text.startsWith('| '))
        const problems = subjects.reduce((count, subject) => count + ('problems' in subject ? subject.problems.length : 1), 0)
        assert.equal(rows.length, 2 + subjects.length + (problems > 0 ? 2 + problems : 0))
      }),
      runs,
    )
  })

  it('finds what it looks for: an unescaped link, image or HTML is reported', () => {
    assert.notDeepEqual(unescapedMarkdown('| [Click](http://evil.example) |'), [])
    assert.notDeepEqual(unescapedMarkdown('| ok \\| ![x](y) |'), [])
    assert.deepEqual(unescapedMarkdown('| \\[Click\\]\\(x\\) | [`invalid-name`](https://github.com/example/svc-plugin/blob/v1.2.3/docs/codes/invalid-name.md) |'), [])
  })
})

describe('a suggested command', () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'svc-plugin-shell-'))
  after(() => rmSync(cwd, {recursive: true, force: true}))

  it('is read back by a POSIX shell as exactly the intended arguments, or not suggested when it could not be printed as is', () => {
    // Printable hostile fragments and ASCII text as well as hostile strings, so that most commands are suggested.
    const argument = fc.oneof(hostileString, fc.string(), fc.array(fc.constantFrom(...hostileText.split(' ').filter(showsAsItself)), {maxLength: 4}).map((words) => words.join(' ')))
    const samples = fc.sample(fc.tuple(fc.array(argument, {minLength: 1, maxLength: 3}), fc.array(argument, {maxLength: 2})), {numRuns: 300, seed: 19})
    const suggested: Array<{command: string; argv: string[]}> = []
    for (const [words, operands] of samples) {
      const command = shellCommand(words, operands)
      const argv = [...words, ...(operands.some((operand) => operand.startsWith('-')) ? ['--'] : []), ...operands]
      if (command === null) assert.ok(argv.some((argument) => !showsAsItself(argument)))
      else suggested.push({command, argv})
    }
    suggested.push({command: shellCommand(['svc-plugin', 'pack'], [printableHostileText()])!, argv: ['svc-plugin', 'pack', printableHostileText()]})
    assert.ok(suggested.length > 100, `${suggested.length} commands`)
    assert.deepEqual(
      shellWords(
        suggested.map((item) => item.command),
        cwd,
      ),
      suggested.map((item) => item.argv),
    )
    assert.deepEqual(readdirSync(cwd), [], 'a command substitution ran')
  })

  it('names a plugin folder zipped one level too deep quoted, whatever its name', () => {
    const folders = fc.sample(
      hostileString.filter((name) => name !== '' && !name.includes('/') && checkEntryPath(`${name}/manifest.json`) === null),
      {numRuns: 200, seed: 7},
    )
    folders.push('$(touch${IFS}PWNED)', '`touch PWNED`', "it's", '-rf', '[Click to fix](evil.example)')
    const commands = folders.map((folder) => /Run (.*) on the folder/.exec(missingManifestAdvice([`${folder}/manifest.json`]))?.[1] ?? '')
    const parsed = shellWords(
      commands.filter((command) => command !== 'svc-plugin pack'),
      cwd,
    )
    const expected = folders.filter((_, index) => commands[index] !== 'svc-plugin pack').map((folder) => ['svc-plugin', 'pack', ...(folder.startsWith('-') ? ['--'] : []), folder])
    assert.deepEqual(parsed, expected)
    assert.ok(expected.length >= 5)
    assert.deepEqual(readdirSync(cwd), [], 'a command substitution ran')
  })
})

/** The printable hostile fragments, joined: every shell metacharacter at once. */
function printableHostileText(): string {
  return hostileText.split(' ').filter(showsAsItself).join(' ')
}
