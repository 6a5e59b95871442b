/**
 * The files the signer adds at an artifact's root: the certificate that signed it and, when that
 * certificate was issued by an intermediate, the issuer's certificate. A signed artifact's `files[]`
 * never lists them (the signature covers them by name); in an unsigned artifact they are ordinary files.
 */
export const signingFileNames = {
  certificateJson: 'certificate.json',
  certificateSig: 'certificate.sig',
  issuerJson: 'issuer.json',
  issuerSig: 'issuer.sig',
} as const

/** {@link signingFileNames} as a list. */
export const signingEntryNames: readonly string[] = Object.values(signingFileNames)

/**
 * The manifest members only the signer writes: `signature` (the trailer) and `containerDigest` (the container
 * digest it signs). `pack` drops an authored one, so `sign` never meets one.
 */
export const signerMembers = {signature: 'signature', containerDigest: 'containerDigest'} as const

/** {@link signerMembers} as a list. */
export const signerMemberNames: readonly string[] = Object.values(signerMembers)
