import {revokeInFile} from '#cli'
import {ExitCode} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'
import type {CommandInput} from '../../base.js'
import type CertRevoke from '../../cert/revoke.js'

/** The arguments and flags of `svc-plugin cert revoke`, as oclif parsed them from the declarations of {@link CertRevoke}. */
export type CertRevokeInput = CommandInput<typeof CertRevoke>

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
