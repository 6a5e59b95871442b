/** Requirement levels, cumulative: development ⊂ package ⊂ publication. */
export const levels = ['development', 'package', 'publication'] as const
export type Level = (typeof levels)[number]

/** True when `text` names a level. */
export function isLevel(text: string): text is Level {
  return (levels as readonly string[]).includes(text)
}

/** True when checks of level `required` apply to a run at level `level`. */
export function levelIncludes(level: Level, required: Level): boolean {
  return levels.indexOf(level) >= levels.indexOf(required)
}
