import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {rules as presetRules} from '@secretlint/secretlint-rule-preset-recommend'
import {ruleIds, rulesFor} from '../../src/artifact/credential-rules.js'
import {KeywordScan} from '../../src/artifact/keyword-scan.js'
import {credentialSamples, keywordFragments, samplePaths} from './secret-corpus.js'
import {assertAgreesWithEveryRule, everyRule, prefiltered} from './rules-oracle.js'

describe('the credential rules behind their keyword prefilter', () => {
  it('report on every sample exactly what every rule reports, in every file the rules tell apart, and every sample is reported', async () => {
    for (const sample of credentialSamples) {
      const own = await everyRule(sample.text, sample.file)
      assert.ok(own.some((message) => message.ruleId.endsWith(sample.rule)), `${sample.rule} reports ${JSON.stringify(sample.text)}`)
      for (const path of [sample.file, ...samplePaths]) {
        for (const text of [sample.text, `// a module\n${sample.text}`, `${sample.text}// secretlint-disable-line\n`, `x\n// secretlint-disable\n${sample.text}`]) {
          const expected = await everyRule(text, path)
          assert.deepEqual(await prefiltered(text, path, 'bytes'), expected, `${path}: ${JSON.stringify(text)}`)
          assert.deepEqual(await prefiltered(text, path, 'text'), expected, `${path}: ${JSON.stringify(text)}`)
        }
      }
    }
  })

  it('report what every rule reports on random text made of keyword pieces, secrets and noise', async () => {
    await assertAgreesWithEveryRule(150)
  })

  it('know every rule of the set, so that none goes unrun (a newer set with a new rule fails here)', () => {
    assert.deepEqual([...ruleIds].sort(), presetRules.map((rule) => rule.meta.id).sort())
  })

  it('run no rule on text without a keyword', () => {
    const module = "'use strict'\n/** Reads the station. See the docs. */\nfunction read(station, options = {}) {\n  return {value: station.value * 1.8 + 32, unit: 'F'}\n}\nmodule.exports = {read}\n"
    for (const path of samplePaths) assert.deepEqual(rulesFor({kind: 'utf-8', bytes: Buffer.from(module.repeat(50))}, path), [])
  })
})

describe('KeywordScan', () => {
  /** Every occurrence of every keyword, by a naive search of the ASCII-lower-cased text. */
  const naive = (keywords: string[], text: string): string[] => {
    const folded = text.replace(/[A-Z]/g, (c) => c.toLowerCase())
    const found: string[] = []
    keywords.forEach((keyword, index) => {
      for (let at = folded.indexOf(keyword.toLowerCase()); at !== -1; at = folded.indexOf(keyword.toLowerCase(), at + 1)) found.push(`${index}@${at}`)
    })
    return found.sort()
  }
  const scanned = (keywords: string[], input: string | Uint8Array): string[] => {
    const found: string[] = []
    new KeywordScan(keywords).scan(input, (keyword, start) => (found.push(`${keyword}@${start}`), false))
    return found.sort()
  }
  it('finds every occurrence of every keyword, in either case, overlapping ones included, in text and in UTF-8 bytes', () => {
    const letters = fc.constantFrom('a', 'b', 'A', 'B', '_', '-', ':')
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({unit: letters, minLength: 1, maxLength: 4}), {minLength: 1, maxLength: 6}), fc.string({unit: fc.oneof(letters, fc.constantFrom('\u00e9', '\u{1F600}'))}), (keywords, text) => {
        const expected = naive(keywords, text)
        assert.deepEqual(scanned(keywords, text), expected)
        // In the bytes, offsets are in bytes: compare the occurrences found in an ASCII text.
        const ascii = text.replace(/[^\x00-\x7f]/g, '')
        assert.deepEqual(scanned(keywords, Buffer.from(ascii)), naive(keywords, ascii))
      }),
    )
  })
  it('finds the keywords of the credential rules as a naive search does, on random text made of their pieces', () => {
    const words = keywordFragments.filter((word) => /^[\x21-\x7e]+$/.test(word))
    fc.assert(fc.property(fc.array(fc.constantFrom(...keywordFragments)).map((pieces) => pieces.join('')), (text) => void assert.deepEqual(scanned(words, text), naive(words, text))))
  })
})
