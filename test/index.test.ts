import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import * as api from '../src/index.js'

// The package entry point is the contract a host or a store imports: these names are documented.
const documented = [
  // value rules (issue: foundation)
  'isPluginId', 'isSemVer', 'compareSemVer', 'isVersionRange', 'satisfies', 'isLanguageTag', 'entrypointCandidates', 'resolveEntrypoint', 'effectiveSettings',
  // validation and schema
  'validateManifest', 'validatePath', 'validateArtifact', 'readJsonDocument', 'manifestSchema', 'manifestSchemaText', 'renderText', 'renderSarif', 'renderGithub',
  // archives, pack, inspect, merge
  'openArchive', 'writeArchive', 'checkEntryPath', 'defaultArchiveLimits', 'pack', 'inspect', 'merge', 'artifactDigestOf',
  // signing and revocation
  'generateKeyPair', 'issueCertificate', 'signArtifact', 'verifyArtifact', 'verifyContents', 'computeArtifactDigest', 'readTrustStore', 'createRevocationList', 'revoke', 'verifyRevocationList',
  // install and store
  'install', 'uninstall', 'activate', 'listInstalled', 'verifyInstalled', 'verifyUpload',
  // errors
  'SvcPluginError', 'isSvcPluginError', 'ValidationError', 'ArchiveError', 'PackError', 'SigningError', 'InstallError', 'MergeError', 'RevocationError', 'StoreError',
]

describe('the package entry point', () => {
  it('exports every documented function and error class', () => {
    const missing = documented.filter((name) => typeof (api as Record<string, unknown>)[name] !== 'function' && typeof (api as Record<string, unknown>)[name] !== 'object')
    assert.deepEqual(missing, [])
  })

  it('gives every error class the SvcPluginError base, so callers branch on code', () => {
    for (const name of ['ValidationError', 'ArchiveError', 'PackError', 'SigningError', 'InstallError', 'MergeError', 'RevocationError', 'StoreError'] as const) {
      const ErrorClass = api[name] as unknown as new (code: string, message: string) => Error
      const error = new ErrorClass('some-code', 'a message')
      assert.ok(error instanceof api.SvcPluginError, name)
      assert.equal((error as api.SvcPluginError).code, 'some-code', name)
    }
  })
})
