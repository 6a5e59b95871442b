import assert from 'node:assert/strict'
import {lintSource} from '@secretlint/core'
import {creator} from '@secretlint/secretlint-rule-preset-recommend'
import fc from 'fast-check'
import {loadCredentialRules, rulesFor, type RuleMessage} from '../../src/artifact/credential-rules.js'
import {credentialSamples, findingShapes, keywordFragments, samplePaths} from './secret-corpus.js'

/** What secretlint's own `lintSource` reports with every rule of the maintained set: the oracle. */
export async function everyRule(text: string, path: string): Promise<RuleMessage[]> {
  const result = await lintSource({source: {filePath: path, content: text, contentType: 'text'}, options: {config: {rules: [{id: creator.meta.id, rule: creator}]}}})
  return result.messages.map((message) => ({ruleId: message.ruleId, messageId: message.messageId ?? '', range: [message.range[0], message.range[1]]}))
}

/** What the scan reports: the rules whose keywords the text holds, found in its UTF-8 bytes or in the text itself. */
export async function prefiltered(text: string, path: string, form: 'bytes' | 'text'): Promise<RuleMessage[]> {
  const ids = rulesFor(form === 'bytes' ? {kind: 'utf-8', bytes: Buffer.from(text, 'utf8')} : {kind: 'text', text}, path)
  return ids.length === 0 ? [] : (await loadCredentialRules()).run(ids, text, path)
}

/** Random text made of the keywords' pieces, whole secrets and noise, as a file of one of the paths the rules tell apart. */
export const fileArbitrary = fc.record({
  path: fc.constantFrom(...samplePaths),
  text: fc
    .array(
      fc.oneof(
        {weight: 6, arbitrary: fc.constantFrom(...keywordFragments)},
        {weight: 2, arbitrary: fc.constantFrom(...credentialSamples.map((sample) => sample.text))},
        {weight: 3, arbitrary: fc.oneof(...findingShapes.map((shape) => fc.stringMatching(shape)))},
        {weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9_\-+/=]{1,100}$/)},
        {weight: 1, arbitrary: fc.string({unit: 'grapheme', maxLength: 8})},
      ),
      {maxLength: 40},
    )
    // What a file's bytes decode to: a lone surrogate is not text a file can hold.
    .map((pieces) => Buffer.from(pieces.join(''), 'utf8').toString('utf8')),
})

/**
 * Asserts, over `runs` random files, that the scan with its keyword prefilter reports exactly what every rule
 * reports, the keywords looked for in the UTF-8 bytes and in the text alike.
 */
export async function assertAgreesWithEveryRule(runs: number, seed?: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fileArbitrary, async ({path, text}) => {
      const expected = await everyRule(text, path)
      assert.deepEqual(await prefiltered(text, path, 'bytes'), expected)
      assert.deepEqual(await prefiltered(text, path, 'text'), expected)
    }),
    {numRuns: runs, ...(seed === undefined ? {} : {seed})},
  )
}
