import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {codeHelpUrl, codePagesBase} from '../../src/report/help.js'

describe('codePagesBase', () => {
  it('finds the code pages in a GitHub or GitLab repository named by package.json, at the tag of the version', () => {
    const github = 'https://github.com/acme/svc-plugin/blob/v1.2.3/docs/codes/'
    for (const repository of [
      'https://github.com/acme/svc-plugin',
      'https://github.com/acme/svc-plugin.git',
      'git+https://github.com/acme/svc-plugin.git',
      'git://github.com/acme/svc-plugin.git',
      'git+ssh://git@github.com/acme/svc-plugin.git',
      'git@github.com:acme/svc-plugin.git',
      'github:acme/svc-plugin',
      'acme/svc-plugin',
      {type: 'git', url: 'git+https://github.com/acme/svc-plugin.git'},
    ]) {
      assert.equal(codePagesBase({version: '1.2.3', repository}), github, JSON.stringify(repository))
    }
    assert.equal(codePagesBase({version: '1.2.3', homepage: 'https://github.com/acme/svc-plugin#readme'}), github)
    assert.equal(codePagesBase({version: '2.0.0-rc.1', repository: 'gitlab:acme/tools/svc-plugin'}), 'https://gitlab.com/acme/tools/svc-plugin/-/blob/v2.0.0-rc.1/docs/codes/')
    assert.equal(
      codePagesBase({version: '1.2.3', repository: {type: 'git', url: 'https://github.com/acme/monorepo.git', directory: 'packages/svc-plugin'}}),
      'https://github.com/acme/monorepo/blob/v1.2.3/packages/svc-plugin/docs/codes/',
    )
    assert.equal(codeHelpUrl('schema:pattern', github), `${github}schema-pattern.md`)
  })

  it('gives no place when package.json names none that publishes the pages, so that no link is a guess', () => {
    for (const links of [
      {version: '1.2.3'},
      {version: '1.2.3', homepage: 'https://example.com/svc-plugin'},
      {version: '1.2.3', repository: 'https://bitbucket.org/acme/svc-plugin'},
      {version: '1.2.3', repository: 'https://github.com/acme'},
      {version: '1.2.3', repository: 'https://github.com/acme/svc-plugin/tree/main'},
      {version: '1.2.3', repository: 'github:acme/../svc-plugin'},
      {version: '1.2.3', repository: {type: 'git'}},
      {version: '1.2.3', repository: 42},
      {version: '1.2.3/../x', repository: 'acme/svc-plugin'},
    ]) {
      assert.equal(codePagesBase(links), null, JSON.stringify(links))
    }
  })
})
