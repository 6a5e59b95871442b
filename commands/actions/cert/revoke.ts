import {prepareRevocationInFile, revokeInFile} from '#cli'
import {ExitCode} from '../../exit-codes.js'
import {signingRoute} from '../../signing-routes.js'
import type {ActionContext} from '../action.js'
import type {CommandInput} from '../../base.js'
import type CertRevoke from '../../cert/revoke.js'

/** The arguments and flags of `svc-plugin cert revoke`, as oclif parsed them from the declarations of {@link CertRevoke}. */
export type CertRevokeInput = CommandInput<typeof CertRevoke>

/** `svc-plugin cert revoke`: adds an entry to the root-signed revocation list (created when missing), or writes the statement a root key in a vault must sign. */
export async function certRevokeCommand({flags}: CertRevokeInput, {output}: ActionContext): Promise<ExitCode> {
  const {
    list: listFile,
    reason,
    json,
    'root-public-key': rootPublicKeyFile,
    'root-key-id': rootKeyId,
    certificate: certificateFile,
    'certificate-id': certificateId,
    'public-key': publicKeyFile,
    artifact: artifactFile,
    'artifact-digest': artifactDigest,
    'revoked-at': revokedAt,
    'next-update': nextUpdate,
  } = flags
  const revocation = {listFile, rootPublicKeyFile, rootKeyId, certificateFile, certificateId, publicKeyFile, artifactFile, artifactDigest, reason, revokedAt, nextUpdate}
  const route = signingRoute(flags, {'root-key': flags['root-key']})
  if ('prepare' in route) {
    const prepared = await prepareRevocationInFile({...revocation, output: route.prepare})
    if (json) output.outJson({statement: prepared.output, entry: prepared.entry, sequence: prepared.sequence, list: prepared.list})
    else output.out(`Prepared the statement to sign for sequence ${prepared.sequence} (revoking ${prepared.entry.kind} ${prepared.entry.value}, issued at ${prepared.list.issuedAt}): ${prepared.output}.`)
    return ExitCode.success
  }
  const result = await revokeInFile({...revocation, key: route.key})
  if (json) output.outJson(result)
  else output.out(`Revoked ${result.entry.kind} ${result.entry.value} (sequence ${result.sequence}).`)
  return ExitCode.success
}
