import {issueCertificateFiles, type keyUsages, type subjectKinds} from '../../../src/index.js'
import {ExitCode} from '../../exit-codes.js'
import type {ActionContext} from '../action.js'

/** The flags of `svc-plugin cert issue`, as parsed (by oclif, or by the direct path). */
export interface CertIssueInput {
  readonly flags: {
    readonly 'root-key'?: string | undefined
    readonly 'issuer-key'?: string | undefined
    readonly 'issuer-certificate'?: string | undefined
    readonly 'issuer-signature'?: string | undefined
    readonly 'subject-public-key': string
    readonly 'subject-kind': (typeof subjectKinds)[number]
    readonly 'subject-id': string
    readonly 'subject-name': string
    readonly usage: (typeof keyUsages)[number]
    readonly 'not-before'?: string | undefined
    readonly 'not-after': string
    readonly 'root-key-id'?: string | undefined
    readonly output: string
    readonly json: boolean
  }
}

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
