/**
 * svc-plugin: validate, pack, sign, verify and install `.svcPlugin` artifacts.
 * Everything a host application or a plugin store needs is exported from here.
 */
export {SvcPluginError, isSvcPluginError} from './errors.js'
export * from './model/index.js'
// pack, inspect, merge: building and describing artifacts (DESIGN §6)
export {pack, type PackOptions, type PackProgress, type PackResult} from './pack/pack.js'
export {PackError, type PackErrorCode} from './pack/errors.js'
export {deriveLanguages} from './pack/languages.js'
export {inspect, InspectError, signatureShape, type Inspection, type InspectErrorCode, type SignatureShape} from './inspect/inspect.js'
export {validateArtifact} from './artifact/validate-artifact.js'
export {artifactDigestOf, type ArtifactDigestOfFile} from './artifact/artifact-digest.js'
export {merge, type MergeOptions, type MergeResult} from './merge/merge.js'
export {MergeError, type MergeErrorCode} from './merge/errors.js'
// manifest: strict reading, schema, validation (DESIGN §3, §4)
export {diagnosticCodes, type Diagnostic, type DiagnosticCode, type Severity} from './manifest/diagnostic.js'
export {levels, isLevel, levelIncludes, type Level} from './manifest/levels.js'
export type {SubjectKind, ValidationReport} from './manifest/report.js'
export {readJsonDocument, maxManifestBytes, type JsonDocument, type JsonPosition, type ReadJsonResult} from './json/strict-json.js'
export {manifestSchema, manifestSchemaText, requirementCategories, type RequirementCategory} from './manifest/schema.js'
export {readDirectoryContent, type ContentFile, type PackageContent, type PackageContentKind} from './manifest/content.js'
export {validateManifest, validatePath, type ValidateManifestOptions, type ValidatePathOptions, type ValidationSubject} from './manifest/validate.js'
export {readManifest, type ReadManifestResult} from './manifest/read-manifest.js'
export type {ExpectedIdentity} from './manifest/rules/identity-matches-directory.js'
export {ValidationError, type ValidationErrorCode} from './manifest/errors.js'
// report: text, JSON, SARIF 2.1.0 and GitHub renderers of a validation report (DESIGN §10)
export * from './report/index.js'
// install: install, uninstall, activate, list, verify installed (DESIGN §8)
export * from './install/index.js'
// archive: entry-path policy, limits, strict reading, deterministic writing (DESIGN §5)
export type {ArchiveEntry, ArchiveLimits, EntryDigest, EntryStream, StrictArchive} from './archive/types.js'
export {checkEntryPath, describeEntryPathProblem, entryCollisionKey, maxEntryPathDepth, maxEntryPathLength, type EntryPathOptions, type EntryPathProblem} from './archive/path-policy.js'
export {defaultArchiveLimits, resolveLimits} from './archive/limits.js'
export {ArchiveError, isArchiveError, type ArchiveErrorCode, type ArchiveErrorDetails, type ArchiveErrorReason} from './archive/errors.js'
export {openArchive, type OpenArchiveOptions} from './archive/reader.js'
export {compareEntryNames, writeArchive, type WriteArchiveOptions, type WriteProgress, type WriterEntry, type WriterSource, type WrittenArchive} from './archive/writer.js'
// signing: keys, certificates, trust stores, canonical digest, strict Ed25519, sign, verify (DESIGN §7)
export {SigningError, type SigningErrorCode} from './pki/errors.js'
export {generateKeyPair, isStrictPublicKey, publicKeyOf, sign as signEd25519, verifyStrict} from './pki/ed25519.js'
export {readPrivateKeyFile, readPublicKeyFile, writeKeyPair, type KeyPair, type WrittenKeyPair} from './pki/keys.js'
export {
  certificateMessage,
  issueCertificate,
  keyUsages,
  parseCertificate,
  subjectKinds,
  type Certificate,
  type CertificateFiles,
  type CertificateSubject,
  type IssueCertificateOptions,
  type IssuedCertificate,
  type KeyUsage,
  type SubjectKind as CertificateSubjectKind,
} from './pki/certificate.js'
export {issueCertificateFiles, readCertificateFiles, type IssueCertificateFilesOptions, type IssuedCertificateFiles} from './pki/certificate-files.js'
export {createRoot, parseTrustStore, readTrustStore, writeRoot, type TrustedRoot, type TrustStore, type WrittenRoot} from './pki/trust.js'
export {computeArtifactDigest, signatureMessage, type ArtifactDigest, type ArtifactDigestInput} from './artifact/digest.js'
export {appendSignatureTrailer, splitSignedManifest, type SignatureFields, type SplitManifest} from './artifact/trailer.js'
export {signContents, type SignedContents, type SigningCredentials, type UnsignedContents} from './signing/sign.js'
export {signArtifact, signArtifactFiles, type SignArtifactFilesOptions, type SignArtifactOptions, type SignArtifactResult} from './signing/sign-artifact.js'
export {verifyContents, type ArtifactContents, type VerifyOptions} from './signing/verify.js'
export {verifyArtifact, verifyArtifactFile, type VerifyArtifactOptions} from './signing/verify-artifact.js'
export {verdictOf, verifyCodes, type Verdict, type VerificationResult, type VerifyCode, type VerifyProblem} from './signing/result.js'
// revocation: root-signed revocation lists, rollback protection (DESIGN §7, revocation)
export {RevocationError, type RevocationErrorCode} from './revocation/errors.js'
export {
  checkRevocationEntry,
  checkRevocationListContent,
  createRevocationList,
  defaultRevocationListValidityMs,
  publicKeyFingerprint,
  refusesEverySignature,
  revocationFileNames,
  revocationKinds,
  revocationListMessage,
  revocationReasons,
  revoke,
  verifyRevocationList,
  type CreateRevocationListOptions,
  type RevocationEntry,
  type RevocationKind,
  type RevocationList,
  type RevocationListContent,
  type RevocationListSummary,
  type RevocationListTimes,
  type RevocationReason,
  type RevocationRequest,
  type VerifiedRevocationList,
} from './revocation/list.js'
export {checkRevocation, type RevocationSubject} from './revocation/check.js'
export {readRevocationList, revocationSignatureFile, writeRevocationList} from './revocation/files.js'
export {artifactRevocationDigest, resolveRevocationTarget, type RevocationTarget, type RevocationTargetOptions} from './revocation/target.js'
export {revokeInFile, type RevokeInFileOptions, type RevokeInFileResult} from './revocation/update.js'
export {admitRevocationList, checkRevocationSequence, recordRevocationSequence, revocationStateFile, type RecordedRevocationList} from './install/revocation-state.js'
// store: the upload verifier (DESIGN §9)
export {verifyUpload, verifyUploadFiles, type UploadAccount, type VerifyUploadOptions} from './store/verify-upload.js'
export {renderUploadText, uploadProblemLine} from './store/render.js'
export {StoreError, type StoreErrorCode} from './store/errors.js'
export type {UploadProblem, UploadProblemCode, UploadReport} from './store/report.js'
