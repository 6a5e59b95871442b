/**
 * svc-plugin: validate, pack, sign, verify and install `.svcPlugin` artifacts.
 *
 * The public API, name by name, grouped for its three users: a host application (install, verify,
 * activate, uninstall, list), a plugin store (upload verification) and tooling (validate, pack, sign,
 * inspect, merge, value rules). Nothing else is exported; a test holds this list, so any change to it is
 * deliberate. See docs/architecture.md for the modules behind it.
 */

// Errors: every refusal is a `SvcPluginError` with a stable `code`; each domain narrows it.
export {SvcPluginError, isSvcPluginError} from './errors.js'
export {CancelledError, type CancelledErrorCode} from './cancellation.js'
export {ArchiveError, isArchiveError, type ArchiveErrorCode, type ArchiveErrorDetails, type ArchiveErrorReason} from './archive/errors.js'
export {InputFileError, type InputFileErrorCode} from './fs/input.js'
export {classifyInput, InputKindError, type InputKind, type InputKindErrorCode} from './artifact/input-kind.js'
export {LockError} from './fs/lock.js'
export {OutputError, type OutputErrorCode} from './fs/output.js'
export {removeTemporaryFilesSync} from './fs/temporary-files.js'

// ── Host: install, verify before launch, activate (roll back), uninstall, list ──────────────────────────
export {install} from './install/install.js'
export type {InstallOptions, InstallResult, InstallProgress, InstallStep, UninstallResult, ActivateResult} from './install/types.js'
export {uninstall, type UninstallOptions} from './install/uninstall.js'
export {activate, type ActivateOptions} from './install/activate.js'
export {listInstalled, type InstalledPlugin} from './install/installed.js'
export {versionDirectory} from './install/version-directories.js'
export {verifyInstalled, type InstalledVerification, type InstalledProblem, type VerifyInstalledOptions} from './install/verify-installed.js'
export {InstallError, type InstallErrorCode, type ArchivePassThroughCode, type SignatureRefusalCode} from './install/errors.js'
export {installWarningCodes, type InstallWarning, type InstallWarningCode} from './install/warnings.js'
export {developmentHostVersion, defaultProtocolRange, type ProtocolRange, type IncompatibleDirection} from './install/compatibility.js'
export type {AdmittedVerdict, TrustRecord, PinnedPublisher, VersionAdmission} from './install/trust-record.js'
export type {LockOptions} from './install/locked.js'
export {readTrustStore, parseTrustStore, type TrustStore, type TrustedRoot} from './pki/trust.js'
export {readRevocationList} from './revocation/files.js'
export {RevocationError, type RevocationErrorCode} from './revocation/errors.js'
export type {RevocationList, RevocationEntry, RevocationListSummary, RevocationKind, RevocationReason} from './revocation/list.js'
export {readManifest, type ReadManifestResult} from './manifest/read-manifest.js'

// ── Verification (hosts and stores): one artifact, one verdict ──────────────────────────────────────────
export {verifyArtifact, verifyArtifactFile, type VerifyArtifactOptions} from './signing/verify-artifact.js'
export type {VerifyOptions} from './signing/verify.js'
export {verifyCodes, type Verdict, type VerificationResult, type VerifyCode, type VerifyProblem, type VerifyWarning} from './signing/result.js'
export type {Certificate, CertificateSubject, SubjectKind as CertificateSubjectKind, KeyUsage} from './pki/certificate.js'

// ── Store: the upload verifier ─────────────────────────────────────────────────────────────────────────
export {verifyUpload, verifyUploadFiles, type Upload, type UploadAccount, type VerifyUploadOptions} from './store/verify-upload.js'
export type {UploadProblem, UploadProblemCode, UploadReport} from './store/report.js'
export {renderUploadText, uploadTextLines} from './store/render.js'
export {StoreError, type StoreErrorCode} from './store/errors.js'

// ── Tooling: validate ──────────────────────────────────────────────────────────────────────────────────
export {validateManifest, type ValidateManifestOptions} from './manifest/validate.js'
export {validatePath, type ValidatePathOptions, type ValidationSubject} from './validate/validate-path.js'
export {validatePaths, isGlobPattern} from './validate/validate-paths.js'
export {findRepositoryRoot} from './fs/repository-root.js'
export {validateArtifact, type ValidateArtifactOptions} from './artifact/validate-artifact.js'
export {isSubjectFailure, type ValidationReport, type SubjectKind, type SubjectFailure, type SubjectResult} from './manifest/report.js'
export {diagnosticCodes, type Diagnostic, type DiagnosticCode, type Severity} from './manifest/diagnostic.js'
export {levels, isLevel, type Level} from './manifest/levels.js'
export {ValidationError, type ValidationErrorCode} from './manifest/errors.js'
export {fileProblemCodes, type FileProblem, type FileProblemCode} from './manifest/declared-files.js'
export {manifestSchema, manifestSchemaText} from './manifest/schema.js'
export {renderReport, renderSubjects, renderStepSummary, reportFormats, colorEnabled, type ReportFormat, type RenderOptions, type ColorContext} from './report/index.js'
export {codeDocumentation, documentedCodes, codeHelpUrl, codePageFile, codePagesFolder, codePagesBase, type CodeDocumentation, type PackageLinks} from './report/index.js'
export {warningLimit, type WarningLimit} from './report/index.js'

// ── Output: what came from an artifact, escaped for where it is shown (docs/output-escaping.md) ─────────
export {subjectsTextLines, textLines, line, styled, type TextLine, type TextPart, type PartsLine, type StyledText} from './report/index.js'
export {jsonText, withoutInvisibleCharacters} from './report/index.js'
export {visibleText, shellCommand} from './model/index.js'
export {plural, formatMiB} from './quantities.js'

// ── Tooling: pack, inspect, merge ──────────────────────────────────────────────────────────────────────
export {pack, type PackOptions, type PackProgress, type PackResult} from './pack/pack.js'
export {PackError, type PackErrorCode} from './pack/errors.js'
export {initPlugin, InitError, type InitErrorCode, type InitOptions, type InitResult} from './init/init.js'
export {inspect, InspectError, type Inspection, type InspectErrorCode, type SignatureShape, type SignatureFacts} from './inspect/inspect.js'
export {merge, type MergeOptions, type MergeResult} from './merge/merge.js'
export {MergeError, type MergeErrorCode} from './merge/errors.js'
export {artifactDigestOf, type ArtifactDigestOfFile} from './artifact/artifact-digest.js'
export type {ArtifactDigest} from './artifact/digest.js'
export {defaultArchiveLimits} from './archive/limits.js'
export type {ArchiveLimits} from './archive/types.js'

// ── Tooling: keys, certificates, signing, revocation ───────────────────────────────────────────────────
export {writeKeyPair, type WrittenKeyPair} from './pki/keys.js'
export {writeRoot, writeRootOfPublicKey, type WrittenPublicRoot, type WrittenRoot} from './pki/trust.js'
export {
  issueCertificateFiles,
  prepareCertificateFiles,
  readCertificateFiles,
  type IssueCertificateFilesOptions,
  type IssuedCertificateFiles,
  type PrepareCertificateFilesOptions,
} from './pki/certificate-files.js'
export {keyUsages, subjectKinds} from './pki/certificate.js'
export {SigningError, type SigningErrorCode} from './pki/errors.js'
export {
  prepareArtifactSignature,
  prepareArtifactSignatureFiles,
  signArtifact,
  signArtifactFiles,
  type PrepareArtifactSignatureFilesOptions,
  type PrepareArtifactSignatureOptions,
  type PreparedArtifactSignature,
  type SignArtifactFilesOptions,
  type SignArtifactOptions,
  type SignArtifactResult,
  type SigningFiles,
} from './signing/sign-artifact.js'
export {signerFromCommand, type Signer, type SignerCommandOptions} from './pki/signer.js'
export type {KeySource, PreparedSignature, SigningKeyOptions} from './pki/signing-key.js'
export type {SigningCredentials} from './signing/sign.js'
export {revokeInFile, type RevokeInFileOptions, type RevokeInFileResult} from './revocation/update.js'
export {revocationReasons, revocationKinds} from './revocation/list.js'

// ── Value rules of a manifest ──────────────────────────────────────────────────────────────────────────
export type {Manifest, Entrypoint, Publisher, Compatibility, PluginReference, FileDigest, SignatureBlock} from './model/manifest.js'
export {ModelError, type ModelErrorCode} from './model/errors.js'
export {isPluginId} from './model/plugin-id.js'
export {isSemVer, compareSemVer} from './model/semver.js'
export {isVersionRange, satisfies} from './model/range.js'
export {isLanguageTag} from './model/language.js'
export {isRid, hostRid, entrypointCandidates} from './model/rid.js'
export {resolveEntrypoint, type ResolvedEntrypoint, type RuntimeKind} from './model/entrypoint.js'
export {effectiveSettings, settingClamps, defaultHealthPath, type EffectiveSettings} from './model/settings.js'
export {knownPermissions, isKnownPermission, type KnownPermission} from './model/permissions.js'
export {maxManifestBytes} from './model/manifest-size.js'
