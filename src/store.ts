/**
 * svc-plugin for a plugin store: the upload verifier, which reads an uploaded artifact once and reports
 * every problem in one report, and its text form. Its refusals are `StoreError`s (from the package root).
 */
export {verifyUpload, type Upload, type UploadAccount, type VerifyUploadOptions} from './store/verify-upload.js'
export type {UploadProblem, UploadProblemCode, UploadReport} from './store/report.js'
export {renderUploadText} from './store/render.js'
