import {issueCertificateFiles, prepareCertificateFiles} from '#cli'
import {ExitCode} from '../../exit-codes.js'
import {UsageError} from '../../failure.js'
import {signingRoute} from '../../signing-routes.js'
import type {ActionContext} from '../action.js'
import type {CommandInput} from '../../base.js'
import type CertIssue from '../../cert/issue.js'

/** The arguments and flags of `svc-plugin cert issue`, as oclif parsed them from the declarations of {@link CertIssue}. */
export type CertIssueInput = CommandInput<typeof CertIssue>

/** `svc-plugin cert issue`: issues a certificate signed by the root or by an issuer certificate, or writes the statement a key in a vault must sign. */
export async function certIssueCommand({flags}: CertIssueInput, {output}: ActionContext): Promise<ExitCode> {
  const {usage: keyUsage, json, 'subject-kind': kind, 'subject-id': id, 'subject-name': name, 'not-before': notBefore, 'not-after': notAfter, 'root-key-id': rootKeyId} = flags
  const certificate = {
    subject: {kind, id, name},
    subjectPublicKeyFile: flags['subject-public-key'],
    keyUsage,
    notBefore,
    notAfter,
    issuerCertificateFile: flags['issuer-certificate'],
    issuerSignatureFile: flags['issuer-signature'],
    rootKeyId,
  }
  const route = signingRoute(flags, {'root-key': flags['root-key'], 'issuer-key': flags['issuer-key']})
  if ('prepare' in route) {
    const prepared = await prepareCertificateFiles({...certificate, output: route.prepare})
    if (json) output.outJson({statement: prepared.output, certificate: prepared.certificate})
    else output.out(`Prepared the statement to sign for certificate ${prepared.certificate.certificateId} (issued at ${prepared.certificate.issuedAt}): ${prepared.output}.`)
    return ExitCode.success
  }
  if (flags.output === undefined) throw new UsageError('Issuing needs --output, the folder to write the certificate into (only --prepare writes nothing else).')
  const key = route.keyFlag === 'root-key' ? {rootKeyFile: flags['root-key']} : route.keyFlag === 'issuer-key' ? {issuerKeyFile: flags['issuer-key']} : {key: route.key}
  const issued = await issueCertificateFiles({...certificate, ...key, rootPublicKeyFile: flags['root-public-key'], output: flags.output})
  if (json) {
    output.outJson(issued)
    return ExitCode.success
  }
  const {certificate: issuedCertificate} = issued
  output.out(
    `Issued ${issuedCertificate.certificateId} (${issuedCertificate.keyUsage[0]}) for ${issuedCertificate.subject.kind} ${issuedCertificate.subject.id}, valid ${issuedCertificate.notBefore} to ${issuedCertificate.notAfter}: ${issued.certificateFile}, ${issued.signatureFile}.`,
  )
  return ExitCode.success
}
