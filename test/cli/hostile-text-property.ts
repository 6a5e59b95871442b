import assert from 'node:assert/strict'
import {mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import {XMLValidator} from 'fast-xml-parser'
import {runCli} from '../helpers/cli.js'
import {hostileString, parseWorkflowCommand, rawInvisibleCharacters, unescapedMarkdown, workflowCommandLines} from '../helpers/hostile-text.js'

/**
 * The property behind test/cli/hostile-text*.test.ts: a manifest whose every string field (name,
 * description, publisher, permissions, a member name, a RID, a dependency id) is a generated hostile string,
 * through `inspect` (text and JSON) and `validate` in the text, github (with its job summary), junit and
 * json formats. Nothing printed holds a raw control or invisible character, a workflow command the tool did
 * not write or Markdown of a value; the XML is well-formed; the JSON gives the description back exactly.
 */
export async function assertHostileManifestsContained(dir: string, numRuns: number): Promise<void> {
  const fields = fc.record({name: hostileString, description: hostileString, publisher: hostileString, permission: hostileString, member: hostileString, rid: hostileString, dependency: hostileString})
  let round = 0
  await fc.assert(
    fc.asyncProperty(fields, async (value) => {
      const folder = path.join(dir, `plugin-${round++}`)
      await mkdir(path.join(folder, 'run'), {recursive: true})
      await writeFile(path.join(folder, 'run', 'plugin'), 'x')
      const manifest = {
        manifestVersion: 1,
        id: 'com.example.generated',
        version: '1.0.0',
        name: value.name,
        description: value.description,
        publisher: {name: value.publisher, id: 'com.example'},
        entrypoints: {'linux-x64': {executable: 'run/plugin'}, [value.rid]: {executable: value.rid}},
        permissions: [value.permission],
        dependencies: [{id: value.dependency}],
        [value.member]: value.description,
      }
      await writeFile(path.join(folder, 'manifest.json'), JSON.stringify(manifest))
      const summary = path.join(folder, 'summary.md')
      const outputs = [
        await runCli(['inspect', folder]),
        await runCli(['validate', folder, '--format', 'text']),
        await runCli(['validate', folder, '--format', 'junit']),
        await runCli(['validate', folder, '--format', 'github'], {env: {GITHUB_STEP_SUMMARY: summary}}),
      ]
      const inspected = await runCli(['inspect', folder, '--json'])
      const markdown = await readFile(summary, 'utf8')
      for (const text of [...outputs.flatMap((output) => [output.stdout, output.stderr]), inspected.stdout, inspected.stderr, markdown]) assert.deepEqual(rawInvisibleCharacters(text), [])
      for (const [index, output] of outputs.entries()) {
        assert.deepEqual(workflowCommandLines(output.stderr), [])
        const commands = workflowCommandLines(output.stdout)
        if (index < 3) assert.deepEqual(commands, [], output.stdout)
        else for (const line of commands) assert.ok(['error', 'warning', 'notice'].includes(parseWorkflowCommand(line)?.command ?? ''), line)
      }
      assert.equal(XMLValidator.validate(outputs[2]!.stdout), true)
      assert.deepEqual(unescapedMarkdown(markdown), [])
      assert.equal(JSON.parse(inspected.stdout).description, value.description)
      await rm(folder, {recursive: true, force: true})
    }),
    {numRuns},
  )
}
