import assert from 'node:assert/strict'
import {PassThrough} from 'node:stream'
import {describe, it} from 'node:test'
import {askInitAnswers, linePrompter} from '../../commands/prompt.js'

const defaults = {id: 'com.example.clock', name: 'Clock', version: '0.1.0', publisher: null, runtimes: ['linux-x64']}

/** Runs the questions against `typed` (what a person types, every line at once) and keeps what was shown. */
async function answer(typed: string): Promise<{answers: unknown; shown: string[]}> {
  const input = new PassThrough()
  input.end(typed)
  const shown: string[] = []
  const prompter = linePrompter(input, (question) => shown.push(question))
  try {
    return {answers: await askInitAnswers(defaults, prompter, (line) => shown.push(line)), shown}
  } finally {
    prompter.close()
  }
}

describe('the questions of init', () => {
  it('shows each default, takes it for an empty answer, and asks again after an answer that is not valid', async () => {
    const {answers, shown} = await answer('Not_An_Id\ncom.acme.clock\n\nAcme Labs\nlinux-x64, linux_x64\nlinux-x64, win-x64\n')
    assert.deepEqual(answers, {id: 'com.acme.clock', name: 'Clock', publisher: 'Acme Labs', runtimes: ['linux-x64', 'win-x64']})
    assert.deepEqual(shown, [
      'Plugin id (com.example.clock): ',
      'Not_An_Id is not a plugin id: lowercase dot-separated segments, e.g. com.example.weather-station.',
      'Plugin id (com.example.clock): ',
      'Name (Clock): ',
      'Publisher (none): ',
      'Runtimes, comma-separated (linux-x64): ',
      'Not a runtime identifier: linux_x64 (e.g. linux-x64, win-x64, osx-arm64).',
      'Runtimes, comma-separated (linux-x64): ',
    ])
  })

  it('takes every default when the input ends at once', async () => {
    const {answers, shown} = await answer('')
    assert.deepEqual(answers, {id: 'com.example.clock', name: 'Clock', publisher: null, runtimes: ['linux-x64']})
    assert.equal(shown.length, 4)
  })
})
