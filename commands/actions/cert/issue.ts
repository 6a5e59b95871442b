import {issueCertificateFiles, type keyUsages, prepareCertificateFiles, type subjectKinds} from '../../../src/index.js'
import {ExitCode} from '../../exit-codes.js'
import {UsageError} from '../../failure.js'
import {signingRoute, type SigningRouteFlags} from '../../signing-routes.js'
import type {ActionContext} from '../action.js'

/** The flags of `svc-plugin cert issue`, as parsed (by oclif, or by the direct path). */
export interface CertIssueInput {
  readonly flags: SigningRouteFlags & {
    readonly 'root-key'?: string | undefined
    readonly 'root-public-key'?: string | undefined
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
    readonly output?: string | undefined
    readonly json: boolean
  }
}

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
