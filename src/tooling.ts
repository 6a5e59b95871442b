/**
 * svc-plugin for plugin authors and their build scripts: validate manifests, folders and artifacts and
 * render the reports; scaffold, pack, inspect and merge artifacts; create keys, roots and certificates,
 * sign artifacts and revoke what was signed; and the value rules of a manifest. The error classes come from
 * the package root.
 */

// ── Validate, and the reports ──────────────────────────────────────────────────────────────────────────
export {validateManifest, type ValidateManifestOptions} from './manifest/validate.js'
export {validatePath, type ValidatePathOptions, type ValidationSubject} from './validate/validate-path.js'
export {validatePaths} from './validate/validate-paths.js'
export {validateArtifact, type ValidateArtifactOptions} from './artifact/validate-artifact.js'
export {isSubjectFailure, type ValidationReport, type SubjectKind, type SubjectFailure, type SubjectResult} from './manifest/report.js'
export {diagnosticCodes, type Diagnostic, type DiagnosticCode, type Severity} from './manifest/diagnostic.js'
export {levels, isLevel, type Level} from './manifest/levels.js'
export {fileProblemCodes, type FileProblem, type FileProblemCode} from './manifest/declared-files.js'
export {manifestSchema, manifestSchemaText} from './manifest/schema.js'
export {renderReport, renderSubjects, reportFormats, type ReportFormat, type RenderOptions} from './report/index.js'
export {codeDocumentation, documentedCodes, codeHelpUrl, codePagesBase, type CodeDocumentation, type PackageLinks} from './report/index.js'
export {warningLimit, type WarningLimit} from './report/index.js'
export {classifyInput, type InputKind} from './artifact/input-kind.js'

// ── Scaffold, pack, inspect, merge ─────────────────────────────────────────────────────────────────────
export {initPlugin, initDefaults, type InitDefaults, type InitOptions, type InitResult} from './init/init.js'
export {developPlugin, type DevelopOptions, type DevelopRound, type DevelopInstalled, type DevelopInvalid, type DevelopRefused, type DevelopSummary, type DevelopedVersion} from './develop/develop.js'
export {pack, type PackOptions, type PackProgress, type PackResult} from './pack/pack.js'
export {inspect, type Inspection, type InspectionComparison, type SignatureFacts, type SignatureShape} from './inspect/inspect.js'
export {compareManifests, asksForMore, describeChanges, type ManifestDocument} from './manifest/changes.js'
export {merge, type MergeOptions, type MergeResult} from './merge/merge.js'
export {artifactDigestOf, type ArtifactDigestOfFile} from './artifact/artifact-digest.js'
export type {ArtifactDigest} from './artifact/digest.js'

// ── Keys, certificates, signing, revocation ────────────────────────────────────────────────────────────
export {writeKeyPair, type WrittenKeyPair} from './pki/keys.js'
export {writeRoot, writeRootOfPublicKey, type WrittenPublicRoot, type WrittenRoot} from './pki/trust.js'
export {issueCertificateFiles, prepareCertificateFiles, readCertificateFiles, type IssueCertificateFilesOptions, type IssuedCertificateFiles, type PrepareCertificateFilesOptions} from './pki/certificate-files.js'
export {keyUsages, subjectKinds} from './pki/certificate.js'
export {
  prepareArtifactSignature,
  signArtifact,
  type PrepareArtifactSignatureOptions,
  type PrepareArtifactSignatureTarget,
  type PreparedArtifactSignature,
  type SignArtifactOptions,
  type SignArtifactResult,
} from './signing/sign-artifact.js'
export type {KeySource, PreparedSignature, SigningKeyOptions, SigningKeySource} from './pki/signing-key.js'
export {prepareRevocationInFile, type PrepareRevocationInFileOptions, type PreparedRevocation, type RevocationInFileOptions, revokeInFile, type RevokeInFileOptions, type RevokeInFileResult} from './revocation/update.js'
export {revocationReasons, revocationKinds} from './revocation/list.js'

// ── Value rules of a manifest ──────────────────────────────────────────────────────────────────────────
export {isPluginId} from './model/plugin-id.js'
export {isSemVer, compareSemVer} from './model/semver.js'
export {isVersionRange, satisfies} from './model/range.js'
export {isLanguageTag} from './model/language.js'
export {isRid, entrypointCandidates} from './model/rid.js'
export {knownPermissions, isKnownPermission, type KnownPermission} from './model/permissions.js'
export {maxManifestBytes} from './model/manifest-size.js'
export {signerFromCommand, signerFromPrivateKey, messageFileVariable, type Signer, type SignerCommandOptions} from './pki/signer.js'
export {reproduce, type ReproduceCode, type ReproduceDifference, type ReproduceOptions, type ReproduceResult} from './pack/reproduce.js'
