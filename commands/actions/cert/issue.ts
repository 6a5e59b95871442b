import {issueCertificateFiles} from '#cli'
import {ExitCode} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'
import type {CommandInput} from '../../base.js'
import type CertIssue from '../../cert/issue.js'

/** The arguments and flags of `svc-plugin cert issue`, as oclif parsed them from the declarations of {@link CertIssue}. */
export type CertIssueInput = CommandInput<typeof CertIssue>

/** `svc-plugin cert issue`: issues a certificate signed by the root or by an issuer certificate. */
export async function certIssueCommand({flags}: CertIssueInput, {output}: ActionContext): Promise<ExitCode> {
  const {
    usage,
    json,
    'root-key': rootKeyFile,
    'issuer-key': issuerKeyFile,
    'issuer-certificate': issuerCertificateFile,
    'issuer-signature': issuerSignatureFile,
    'subject-public-key': subjectPublicKeyFile,
    'subject-kind': kind,
    'subject-id': id,
    'subject-name': name,
    'not-before': notBefore,
    'not-after': notAfter,
    'root-key-id': rootKeyId,
  } = flags
  const issued = await issueCertificateFiles({
    subject: {kind, id, name},
    subjectPublicKeyFile,
    keyUsage: usage,
    notBefore: notBefore ?? new Date(),
    notAfter,
    rootKeyFile,
    issuerKeyFile,
    issuerCertificateFile,
    issuerSignatureFile,
    rootKeyId,
    output: flags.output,
  })
  if (json) {
    output.outJson(issued)
    return ExitCode.success
  }
  const {certificate} = issued
  output.out(
    `Issued ${certificate.certificateId} (${certificate.keyUsage[0]}) for ${certificate.subject.kind} ${certificate.subject.id}, valid ${certificate.notBefore} to ${certificate.notAfter}: ${issued.certificateFile}, ${issued.signatureFile}.`,
  )
  return ExitCode.success
}
