import {createInterface} from 'node:readline'
import type {Readable} from 'node:stream'
import {isPluginId, isRid, type InitDefaults} from '#cli'

/** Asks one question at a time and reads one line per answer. */
export interface Prompter {
  /** Shows `question` with `shown` as its default and resolves with the line typed (trimmed); `null` at the end of the input. */
  ask(question: string, shown: string): Promise<string | null>
  /** Stops reading the input. */
  close(): void
}

/**
 * A prompter reading lines from `input` (a terminal in cooked mode echoes what is typed) and showing each
 * question through `show` (the command's output, which escapes it).
 */
export function linePrompter(input: Readable, show: (question: string) => void): Prompter {
  const lines = createInterface({input, terminal: false})[Symbol.asyncIterator]()
  return {
    async ask(question, shown) {
      show(`${question}${shown === '' ? '' : ` (${shown})`}: `)
      const next = await lines.next()
      return next.done === true ? null : String(next.value).trim()
    },
    close: () => void lines.return?.(),
  }
}

/** What init asks for, and what it takes when the answer is empty. */
export interface InitAnswers {
  id: string
  name: string
  publisher: string | null
  runtimes: string[]
}

/** One question: its words, the default shown, and why an answer is refused (null when it is not). */
interface Question {
  readonly words: string
  readonly shown: string
  readonly refusal?: (answer: string) => string | null
}

/**
 * Asks `question` until the answer is acceptable; null for an empty answer or the end of the input (take the
 * default). A refused answer is followed by why, through `say`, and the question again.
 */
async function answerTo(question: Question, prompter: Prompter, say: (line: string) => void): Promise<string | null> {
  for (;;) {
    const answer = await prompter.ask(question.words, question.shown)
    if (answer === null || answer === '') return null
    const refusal = question.refusal?.(answer) ?? null
    if (refusal === null) return answer
    say(refusal)
  }
}

/** The runtime identifiers of a comma-separated answer. */
function ridsOf(answer: string): string[] {
  return answer.split(',').map((rid) => rid.trim()).filter((rid) => rid !== '')
}

/**
 * Asks for the id, the name, the publisher and the runtimes, each with its default shown; an empty answer
 * (or the end of the input) takes the default, and an answer that is not valid is asked again, with why.
 */
export async function askInitAnswers(defaults: InitDefaults, prompter: Prompter, say: (line: string) => void): Promise<InitAnswers> {
  const id = await answerTo({words: 'Plugin id', shown: defaults.id, refusal: (answer) => (isPluginId(answer) ? null : `${answer} is not a plugin id: lowercase dot-separated segments, e.g. com.example.weather-station.`)}, prompter, say)
  const name = await answerTo({words: 'Name', shown: defaults.name}, prompter, say)
  const publisher = await answerTo({words: 'Publisher', shown: defaults.publisher ?? 'none'}, prompter, say)
  const runtimes = await answerTo(
    {
      words: 'Runtimes, comma-separated',
      shown: defaults.runtimes.join(', '),
      refusal: (answer) => {
        const wrong = ridsOf(answer).filter((rid) => !isRid(rid))
        return wrong.length === 0 ? null : `Not a runtime identifier: ${wrong.join(', ')} (e.g. linux-x64, win-x64, osx-arm64).`
      },
    },
    prompter,
    say,
  )
  return {id: id ?? defaults.id, name: name ?? defaults.name, publisher: publisher ?? defaults.publisher, runtimes: runtimes === null || ridsOf(runtimes).length === 0 ? defaults.runtimes : ridsOf(runtimes)}
}
