/**
 * svc-plugin for hosts: install, verify before launch, activate (roll back), uninstall and list plugins,
 * verify an artifact, read trust stores and revocation lists, and launch an installed plugin; and every
 * error class of the package with its codes. A plugin store imports `svc-plugin/store`, build scripts and
 * authors' tools `svc-plugin/tooling`. A test holds the names of each entry (test/public-api/), so any
 * change to them is deliberate. See docs/architecture.md for the modules behind them.
 */

// Errors: every refusal is a `SvcPluginError` with a stable `code`; each domain narrows it.
export {SvcPluginError, isSvcPluginError} from './errors.js'
export {CancelledError, type CancelledErrorCode} from './cancellation.js'
export {ArchiveError, isArchiveError, type ArchiveErrorCode, type ArchiveErrorDetails, type ArchiveErrorReason} from './archive/errors.js'
export {InputFileError, type InputFileErrorCode} from './fs/input.js'
export {InputKindError, type InputKindErrorCode} from './artifact/input-kind.js'
export {LockError, type LockHolder} from './fs/lock.js'
export {OutputError, type OutputErrorCode} from './fs/output.js'
export {InstallError, type InstallErrorCode, type ArchivePassThroughCode, type SignatureRefusalCode} from './install/errors.js'
export {RevocationError, type RevocationErrorCode} from './revocation/errors.js'
export {StoreError, type StoreErrorCode} from './store/errors.js'
export {ValidationError, type ValidationErrorCode} from './manifest/errors.js'
export {PackError, type PackErrorCode} from './pack/errors.js'
export {InitError, type InitErrorCode} from './init/errors.js'
export {DevelopError, type DevelopErrorCode} from './develop/errors.js'
export {InspectError, type InspectErrorCode} from './inspect/errors.js'
export {MergeError, type MergeErrorCode} from './merge/errors.js'
export {SigningError, type SigningErrorCode} from './pki/errors.js'
export {ModelError, type ModelErrorCode} from './model/errors.js'

// ── Install, verify before launch, activate (roll back), uninstall, list ───────────────────────────────
export {install} from './install/install.js'
export type {InstallOptions, InstallResult, InstallProgress, InstallStep, UninstallResult, ActivateResult} from './install/types.js'
export {uninstall, type UninstallOptions} from './install/uninstall.js'
export {activate, type ActivateOptions} from './install/activate.js'
export {listInstalled, type InstalledPlugin} from './install/installed.js'
export {versionDirectory} from './install/version-directories.js'
export {verifyInstalled, type InstalledVerification, type InstalledProblem, type VerifyInstalledOptions} from './install/verify-installed.js'
export {installWarningCodes, type InstallWarning, type InstallWarningCode} from './install/warnings.js'
export {developmentHostVersion, defaultProtocolRange, type ProtocolRange, type IncompatibleDirection} from './install/compatibility.js'
export type {AdmittedVerdict, TrustRecord, PinnedPublisher, VersionAdmission} from './install/trust-record.js'
export type {LockOptions} from './install/locked.js'
export type {ConsentCallback} from './install/consent.js'
export type {ManifestChanges, RequestChange} from './manifest/changes.js'
export {defaultArchiveLimits} from './archive/limits.js'
export type {ArchiveLimits} from './archive/types.js'

// ── Trust: trust stores, revocation lists, one verdict per artifact ─────────────────────────────────────
export {readTrustStore, parseTrustStore, type TrustStore, type TrustedRoot} from './pki/trust.js'
export {readRevocationList} from './revocation/files.js'
export type {RevocationList, RevocationEntry, RevocationListSummary, RevocationKind, RevocationReason} from './revocation/list.js'
export {verifyArtifact, type VerifyArtifactOptions} from './signing/verify-artifact.js'
export type {VerifyOptions} from './signing/verify.js'
export type {StoreSignature, StoreSignatureOptions} from './signing/countersignature.js'
export {verifyCodes, type Verdict, type VerificationResult, type VerifyCode, type VerifyProblem, type VerifyWarning} from './signing/result.js'
export type {Certificate, CertificateSubject, SubjectKind as CertificateSubjectKind, KeyUsage} from './pki/certificate.js'

// ── Launch an installed plugin: its manifest, its entrypoint on this machine, its settings ─────────────
export {readManifest, type ReadManifestResult} from './manifest/read-manifest.js'
export type {Manifest, Entrypoint, Publisher, Compatibility, PluginReference, FileDigest, SignatureBlock} from './model/manifest.js'
export {hostRid} from './model/rid.js'
export {resolveEntrypoint, type ResolvedEntrypoint, type RuntimeKind} from './model/entrypoint.js'
export {effectiveSettings, settingClamps, defaultHealthPath, type EffectiveSettings} from './model/settings.js'
