import {Flags} from '@oclif/core'

/** `--protocol 1-3` (or `2`): the protocol majors a host serves. */
export const protocolFlag = Flags.custom<{minimum: number; maximum: number}>({
  description: 'Protocol majors the host serves, as MIN-MAX or one number.',
  helpValue: '<min-max>',
  async parse(input) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(input)
    const minimum = Number(match?.[1])
    const maximum = Number(match?.[2] ?? match?.[1])
    if (match === null || minimum < 1 || maximum < minimum) throw new Error(`--protocol expects MIN-MAX with 1 <= MIN <= MAX, not ${JSON.stringify(input)}.`)
    return {minimum, maximum}
  },
})
