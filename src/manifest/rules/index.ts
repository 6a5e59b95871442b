import {compatibilityRangesParse} from './compatibility-ranges-parse.js'
import {declaredFilesMatchContent} from './declared-files-match-content.js'
import {dependenciesAreConsistent} from './dependencies-are-consistent.js'
import {entrypointLayoutIsValid} from './entrypoint-layout-is-valid.js'
import {entrypointRuntimeIsConsistent} from './entrypoint-runtime-is-consistent.js'
import {entrypointsAreDeclared} from './entrypoints-are-declared.js'
import {entrypointsArePacked} from './entrypoints-are-packed.js'
import {executablesStayInsideVersionDirectory} from './executables-stay-inside-version-directory.js'
import {fileDigestsAreDeclared} from './file-digests-are-declared.js'
import {fileDigestsAreWellFormed} from './file-digests-are-well-formed.js'
import {generatedFieldsAreNotAuthored} from './generated-fields-are-not-authored.js'
import {hostEntrypointIsPresent} from './host-entrypoint-is-present.js'
import {hostIsCompatible} from './host-is-compatible.js'
import {iconIsPacked} from './icon-is-packed.js'
import {iconPathIsSafe} from './icon-path-is-safe.js'
import {idIsAPluginId} from './id-is-a-plugin-id.js'
import {languagesAreWellFormed} from './languages-are-well-formed.js'
import {nameIsDisplayable} from './name-is-displayable.js'
import {packageHoldsNoSecrets} from './package-holds-no-secrets.js'
import {packageIsPackable} from './package-is-packable.js'
import {permissionsAreKnown} from './permissions-are-known.js'
import {permissionsAreNotBlank} from './permissions-are-not-blank.js'
import {permissionsAreUnique} from './permissions-are-unique.js'
import {publicationMetadataIsPresent} from './publication-metadata-is-present.js'
import {publisherIsWellFormed} from './publisher-is-well-formed.js'
import {signatureIsWellFormed} from './signature-is-well-formed.js'
import type {Rule} from './types.js'
import {versionIsSemVer} from './version-is-semver.js'

export type {Finding, Rule, RuleContext, SchemaClaim} from './types.js'

/**
 * Every rule, in the order they run. Order matters only where two rules could judge one value: the
 * earlier one's error marks the pointer rejected for the later one (a path that leaves the version
 * directory is not also called a script; a misplaced executable is not also called missing).
 */
export const rules: readonly Rule[] = [
  // development: shape and cross-field rules
  idIsAPluginId,
  nameIsDisplayable,
  versionIsSemVer,
  entrypointsAreDeclared,
  executablesStayInsideVersionDirectory,
  entrypointRuntimeIsConsistent,
  iconPathIsSafe,
  publisherIsWellFormed,
  permissionsAreNotBlank,
  permissionsAreUnique,
  permissionsAreKnown,
  languagesAreWellFormed,
  compatibilityRangesParse,
  dependenciesAreConsistent,
  fileDigestsAreWellFormed,
  signatureIsWellFormed,
  generatedFieldsAreNotAuthored,
  // development, for a named host: what an install on it would say
  hostEntrypointIsPresent,
  hostIsCompatible,
  // package: layout, then the snapshot of packaged content
  entrypointLayoutIsValid,
  entrypointsArePacked,
  iconIsPacked,
  declaredFilesMatchContent,
  fileDigestsAreDeclared,
  packageIsPackable,
  packageHoldsNoSecrets,
  publicationMetadataIsPresent,
]
