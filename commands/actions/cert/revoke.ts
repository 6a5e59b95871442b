import {revokeInFile, type RevocationReason} from '../../../src/index.js'
import {ExitCode} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'

/** The flags of `svc-plugin cert revoke`, as parsed (by oclif, or by the direct path). */
export interface CertRevokeInput {
  readonly flags: {
    readonly list: string
    readonly 'root-key': string
    readonly 'root-key-id'?: string | undefined
    readonly certificate?: string | undefined
    readonly 'certificate-id'?: string | undefined
    readonly 'public-key'?: string | undefined
    readonly artifact?: string | undefined
    readonly 'artifact-digest'?: string | undefined
    readonly reason: RevocationReason
    readonly 'revoked-at'?: string | undefined
    readonly 'next-update'?: string | undefined
    readonly json: boolean
  }
}

/** `svc-plugin cert revoke`: adds an entry to the root-signed revocation list (created when missing). */
export async function certRevokeCommand({flags}: CertRevokeInput, {output}: ActionContext): Promise<ExitCode> {
  const {
    list: listFile,
    reason,
    json,
    'root-key': rootKeyFile,
    'root-key-id': rootKeyId,
    certificate: certificateFile,
    'certificate-id': certificateId,
    'public-key': publicKeyFile,
    artifact: artifactFile,
    'artifact-digest': artifactDigest,
    'revoked-at': revokedAt,
    'next-update': nextUpdate,
  } = flags
  const result = await revokeInFile({listFile, rootKeyFile, rootKeyId, certificateFile, certificateId, publicKeyFile, artifactFile, artifactDigest, reason, revokedAt, nextUpdate})
  if (json) output.outJson(result)
  else output.out(`Revoked ${result.entry.kind} ${result.entry.value} (sequence ${result.sequence}).`)
  return ExitCode.success
}
