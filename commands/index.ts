/**
 * Every command of the CLI, by id (oclif's explicit discovery: no directory scan at start-up).
 * Topic commands use `:` in their id (`cert:root` is `svc-plugin cert root`).
 */
export const COMMANDS = {}
