import {Flags} from '@oclif/core'
import {devCommand} from './actions/dev.js'
import {BaseCommand} from './base.js'
import {dataRootOptions, stringArgument} from './flags.js'

/** `svc-plugin dev [FOLDER]`: the library `developPlugin` behind flags. */
export default class Dev extends BaseCommand<typeof Dev> {
  static override summary = 'Install a plugin folder into a data root as a development build, again after every change.'
  static override description = `Watches FOLDER (default: the current folder). On start and after every change (a burst of saves within 150 ms is one round) it validates the folder at package level, prints the problems as validate does, and when the folder is valid installs it into --data-root as a development build: the same version replaced (forced), unsigned, on host version 0.0.0-dev, so a host watching its data root picks it up. An invalid folder leaves the last good version installed ("3 errors; kept 1.4.2").

What pack leaves out (.svcpluginignore, .git/, operating-system files) is not watched, nor is a data root inside the folder (which .svcpluginignore must then list: data-root-inside-plugin otherwise). A file an editor saves by renaming a new one over it is seen like any write.

Output (stdout): one line per round, "installed <id> <version> (dev) in <n> ms", "<n> errors; kept <version>" or "refused (<code>); kept <version>" (the refusal itself on stderr). --json prints one JSON document per round: {outcome, changed, durationMs, problems, id, version, directory, warnings} when installed, {…, errors, kept} when invalid, {…, error, kept} when refused.

Ctrl-C (or SIGTERM) stops the loop once the round under way has finished, so the data root is left settled (no staging directory, the plugin's lock released), and exits 0: stopping is how the loop ends, and a script or npm run goes on as after any success. A second Ctrl-C during a round exits 4 at once.

Exit status: with --once, 0 installed, 1 the folder is invalid, the refusal's status otherwise (see the README); without, 0 when stopped, 2 usage error (the data root inside the folder), 3 FOLDER is not a folder.`

  static override examples = [
    {description: 'Develop the plugin in the current folder against a host whose data root is ~/.svc-dev.', command: '<%= config.bin %> dev --data-root ~/.svc-dev'},
    {description: 'One round, for a script or a test.', command: '<%= config.bin %> dev ./plugin --data-root ./data --once'},
  ]

  static override args = {
    folder: stringArgument({description: 'The plugin folder to watch.', default: '.'}),
  }

  static override flags = {
    'data-root': Flags.string({description: 'The host data directory to install into.', required: true, ...dataRootOptions}),
    rid: Flags.string({description: "The host runtime identifier whose entrypoint must be present (default: this machine's, e.g. linux-x64).", helpValue: '<rid>'}),
    once: Flags.boolean({description: 'Run one round and exit with its status, without watching.', default: false}),
  }

  async run(): Promise<void> {
    this.setExit(await devCommand(this.input, this.context))
  }
}
