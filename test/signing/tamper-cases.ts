import {encodeBase64} from '../../src/pki/base64.js'
import {generateKeyPair} from '../../src/pki/ed25519.js'
import type {VerifyCode} from '../../src/signing/result.js'
import type {TrustStore} from '../../src/pki/trust.js'
import {createRoot} from '../../src/pki/trust.js'
import {type Artifact, type Chain, flipByte, forgeSigned, signedSample, withEntry, withManifestText} from './artifacts.js'
import {craftCertificate, createPki, fieldsOf, issueFor, samplePlugin, type TestPki, validFrom, validTo} from './pki.js'

/** One attack or edge case: how to build the artifact, how to verify it, what must come out. */
export interface TamperCase {
  name: string
  /** The code of the one problem, or 'valid' for an artifact that must verify. */
  expect: VerifyCode | 'valid'
  build: (context: TamperContext) => Promise<Artifact> | Artifact
  /** The verifier's clock (default: the test clock). */
  now?: Date
  /** The trust store to verify with (default: the context's). */
  trust?: (context: TamperContext) => TrustStore
}

/** Shared material: a PKI and an honestly signed artifact. */
export interface TamperContext {
  pki: TestPki
  signed: Artifact
}

/** A PKI and a signed sample for a tamper suite. */
export async function tamperContext(): Promise<TamperContext> {
  const pki = createPki()
  return {pki, signed: await signedSample(pki)}
}

const text = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('utf8')
const bytes = (value: string): Uint8Array => new Uint8Array(Buffer.from(value, 'utf8'))
const groupOrder = 2n ** 252n + 27742317777372353535851937790883648493n

/** Signs the sample plugin with no checks: any chain, key, key id and time. */
function forgeSample(context: TamperContext, options: {chain?: Chain; privateKey?: Uint8Array; keyId?: string; signedAt?: string; publisherId?: string | null; algorithm?: string; signatureValue?: (message: Uint8Array) => Uint8Array}): Artifact {
  const {manifest, payload} = samplePlugin({publisherId: options.publisherId})
  const chain = options.chain ?? {certificate: context.pki.certificate}
  return forgeSigned({
    packed: manifest,
    payload,
    chain,
    privateKey: options.privateKey ?? context.pki.signer.privateKey,
    keyId: options.keyId ?? (fieldsOf(chain.certificate).certificateId as string),
    signedAt: options.signedAt ?? '2030-06-01T12:00:00Z',
    algorithm: options.algorithm,
    signatureValue: options.signatureValue,
  })
}

/** A package certificate for a fresh key, signed by the root with fields overridden (no checks). */
function craftedLeaf(context: TamperContext, overrides: Record<string, unknown>, signerPrivateKey = context.pki.root.privateKey): {chain: Chain; privateKey: Uint8Array} {
  const keyPair = generateKeyPair()
  const fields = {...fieldsOf(context.pki.certificate), certificateId: `cert_${'5'.repeat(32)}`, publicKey: encodeBase64(keyPair.publicKey), ...overrides}
  return {chain: {certificate: craftCertificate(fields, signerPrivateKey)}, privateKey: keyPair.privateKey}
}

/** An issuer certificate (root-signed) and a package certificate it issued. */
function issuerChain(context: TamperContext, window: {issuer?: [string, string]; leaf?: [string, string]} = {}): {issuer: ReturnType<typeof issueFor>; leaf: ReturnType<typeof issueFor>} {
  const {pki} = context
  const [issuerFrom, issuerTo] = window.issuer ?? [validFrom, validTo]
  const issuer = issueFor(pki.root.privateKey, pki.rootKeyId, {kind: 'issuer', id: 'com.example.issuing', usage: 'issuer', notBefore: issuerFrom, notAfter: issuerTo})
  const [leafFrom, leafTo] = window.leaf ?? [issuerFrom, issuerTo]
  const leaf = issueFor(issuer.keyPair.privateKey, pki.rootKeyId, {issuerCertificate: issuer.files.json, notBefore: leafFrom, notAfter: leafTo})
  return {issuer, leaf}
}

/** Every case of the tamper suite, each with the code it must produce. */
export const tamperCases: TamperCase[] = [
  {name: 'an honestly signed artifact', expect: 'valid', build: ({signed}) => signed},

  // Content.
  {name: 'a byte flipped in a payload file', expect: 'file-digest-mismatch', build: ({signed}) => withEntry(signed, 'runtimes/win-x64/WeatherStation.exe', (data) => flipByte(data as Uint8Array, 3))},
  {name: 'a payload file that grew by one byte', expect: 'file-size-mismatch', build: ({signed}) => withEntry(signed, 'assets/icon.png', (data) => new Uint8Array([...(data as Uint8Array), 0]))},
  {name: 'a file added', expect: 'undeclared-file', build: ({signed}) => withEntry(signed, 'runtimes/linux-x64/extra.so', () => bytes('payload'))},
  {name: 'a file removed', expect: 'file-missing', build: ({signed}) => withEntry(signed, 'Localization/Strings.resx', () => null)},
  {
    name: 'a file renamed',
    expect: 'file-missing',
    build: ({signed}) => {
      const data = signed.entries.get('assets/icon.png') as Uint8Array
      return withEntry(withEntry(signed, 'assets/icon.png', () => null), 'assets/logo.png', () => data)
    },
  },
  {name: 'a file added under a name like certificate.txt', expect: 'undeclared-file', build: ({signed}) => withEntry(signed, 'certificate.txt', () => bytes('x'))},
  {name: 'an extra issuer.json beside a root-issued certificate', expect: 'certificate-issuer-mismatch', build: ({signed, pki}) => withEntry(withEntry(signed, 'issuer.json', () => pki.certificate.json), 'issuer.sig', () => bytes(`${pki.certificate.sig}\n`))},

  // The manifest and its trailer.
  {name: 'a byte changed in the manifest before the trailer', expect: 'signature-invalid', build: ({signed}) => withManifestText(signed, (t) => t.replace('"Weather Station"', '"Weather Statiom"'))},
  {name: 'a byte changed in signedAt', expect: 'signature-invalid', build: ({signed}) => withManifestText(signed, (t) => t.replace('"signedAt":"2030-06-01T12:00:00Z"', '"signedAt":"2030-06-01T12:00:01Z"'))},
  {name: 'a byte changed in keyId', expect: 'signature-key-id-mismatch', build: ({signed}) => withManifestText(signed, (t) => t.replace(/"keyId":"cert_(.)/, (_, c: string) => `"keyId":"cert_${c === 'a' ? 'b' : 'a'}`))},
  {name: 'the trailer reformatted with a space', expect: 'signature-malformed', build: ({signed}) => withManifestText(signed, (t) => t.replace(',"signature":{', ', "signature":{'))},
  {name: 'the trailer reformatted across lines', expect: 'signature-malformed', build: ({signed}) => withManifestText(signed, (t) => t.replace(',"signature":{', ',\n  "signature": {'))},
  {
    name: 'the trailer moved to the front of the object',
    expect: 'signature-malformed',
    build: ({signed}) =>
      withManifestText(signed, (t) => {
        const at = t.lastIndexOf(',"signature":')
        return `{${t.slice(at + 1, -2)},${t.slice(1, at)}}\n`
      }),
  },
  {name: 'the signature key escaped as "sig\\u006eature"', expect: 'signature-malformed', build: ({signed}) => withManifestText(signed, (t) => t.replace(',"signature":', ',"sig\\u006eature":'))},
  {name: 'a duplicated signature key', expect: 'signature-malformed', build: ({signed}) => withManifestText(signed, (t) => t.replace('"manifestVersion": 1,', '"manifestVersion": 1,\n  "signature": {"algorithm": "ed25519"},'))},
  {name: 'an unsupported algorithm', expect: 'signature-algorithm-unsupported', build: ({signed}) => withManifestText(signed, (t) => t.replace('"algorithm":"ed25519"', '"algorithm":"ed448"'))},
  {name: 'the signature stripped (an unsigned artifact)', expect: 'signature-missing', build: () => ({manifest: samplePlugin().manifest, entries: samplePlugin().payload})},
  {name: 'no manifest.json', expect: 'manifest-missing', build: ({signed}) => ({manifest: null, entries: signed.entries})},
  {name: 'a manifest that is not JSON', expect: 'manifest-malformed', build: ({signed}) => withManifestText(signed, (t) => t.replace('{', '{{'))},
  {name: 'a files[] entry with an upper-case digest', expect: 'manifest-malformed', build: ({signed}) => withManifestText(signed, (t) => t.replace(/"sha256": "sha256:([0-9a-f])/, (_, c: string) => `"sha256": "sha256:${c.toUpperCase() === c ? 'A' : c.toUpperCase()}`))},
  {
    name: 'S replaced by S + L',
    expect: 'signature-invalid',
    build: ({signed}) =>
      withManifestText(signed, (t) =>
        t.replace(/"value":"([^"]+)"/, (_, value: string) => {
          const signature = Buffer.from(value, 'base64')
          let s = 0n
          for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] as number)
          s += groupOrder
          for (let i = 32; i < 64; i++) {
            signature[i] = Number(s & 0xffn)
            s >>= 8n
          }
          return `"value":"${signature.toString('base64')}"`
        }),
      ),
  },

  // Certificate files.
  {name: 'a byte changed in certificate.json', expect: 'certificate-untrusted', build: ({signed}) => withEntry(signed, 'certificate.json', (data) => bytes(text(data).replace('Example Labs', 'Example Labz')))},
  {name: 'a byte changed in certificate.sig', expect: 'certificate-untrusted', build: ({signed}) => withEntry(signed, 'certificate.sig', (data) => bytes(text(data).replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))))},
  {name: 'certificate.sig that is not base64', expect: 'certificate-unreadable', build: ({signed}) => withEntry(signed, 'certificate.sig', (data) => bytes(`*${text(data).slice(1)}`))},
  {name: 'no certificate.json', expect: 'certificate-unreadable', build: ({signed}) => withEntry(signed, 'certificate.json', () => null)},
  {name: 'no certificate.sig', expect: 'certificate-unreadable', build: ({signed}) => withEntry(signed, 'certificate.sig', () => null)},
  {name: 'a certificate from an unknown root', expect: 'certificate-untrusted', build: ({signed}) => signed, trust: () => createRoot('root_other').trustStore},
  {
    name: 'a certificate whose root key id is unknown but whose signature is the root\'s',
    expect: 'certificate-untrusted',
    build: (context) => {
      const leaf = craftedLeaf(context, {rootKeyId: 'root_elsewhere'})
      return forgeSample(context, {chain: leaf.chain, privateKey: leaf.privateKey})
    },
  },
  {
    name: 'a root-signed certificate with an unknown member',
    expect: 'certificate-malformed',
    build: (context) => {
      const leaf = craftedLeaf(context, {comment: 'extra'})
      return forgeSample(context, {chain: leaf.chain, privateKey: leaf.privateKey})
    },
  },
  {
    name: 'a package certificate for a service subject (kind and key usage disagree)',
    expect: 'certificate-malformed',
    build: (context) => {
      const leaf = craftedLeaf(context, {subject: {kind: 'service', id: 'com.example', name: 'Example Labs'}})
      return forgeSample(context, {chain: leaf.chain, privateKey: leaf.privateKey})
    },
  },
  {
    name: 'a small-order public key certified by the root',
    expect: 'signature-invalid',
    build: (context) => {
      // A = (0, -1), order 2; R = identity, S = 0 "verifies" any message under a cofactored check.
      const smallOrder = Buffer.from('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex')
      const leaf = craftedLeaf(context, {publicKey: smallOrder.toString('base64')})
      const identityR = Buffer.concat([Buffer.from([1]), Buffer.alloc(63)])
      return forgeSample(context, {chain: leaf.chain, signatureValue: () => identityR})
    },
  },
  {name: 'a registry certificate', expect: 'certificate-wrong-purpose', build: (context) => signedWith(context, issueFor(context.pki.root.privateKey, context.pki.rootKeyId, {usage: 'registry'}))},
  {name: 'an issuer certificate used to sign an artifact', expect: 'certificate-wrong-purpose', build: (context) => signedWith(context, issueFor(context.pki.root.privateKey, context.pki.rootKeyId, {kind: 'issuer', usage: 'issuer'}))},

  // Time.
  {name: 'a certificate expired at signedAt', expect: 'certificate-expired', now: new Date('2031-01-01T00:02:00Z'), build: (context) => forgeSample(context, {signedAt: '2031-01-01T00:00:01Z'})},
  {name: 'a certificate not yet valid at signedAt', expect: 'certificate-not-yet-valid', build: (context) => forgeSample(context, {signedAt: '2029-12-31T23:59:59Z'})},
  {name: 'a certificate expired now but valid at signedAt', expect: 'valid', now: new Date('2035-01-01T00:00:00Z'), build: ({signed}) => signed},
  {name: 'signedAt exactly at notAfter (bounds are inclusive)', expect: 'valid', now: new Date(validTo), build: (context) => forgeSample(context, {signedAt: validTo})},
  {name: 'signedAt exactly at notBefore (bounds are inclusive)', expect: 'valid', build: (context) => forgeSample(context, {signedAt: validFrom})},
  {name: 'signedAt 5 minutes and 1 second in the future', expect: 'signed-in-future', build: (context) => forgeSample(context, {signedAt: '2030-06-01T12:05:01Z'})},
  {name: 'signedAt exactly 5 minutes in the future', expect: 'valid', build: (context) => forgeSample(context, {signedAt: '2030-06-01T12:05:00Z'})},

  // Issuer chains.
  {name: 'a certificate issued by an issuer certificate', expect: 'valid', build: (context) => signedWithIssuer(context, issuerChain(context))},
  {name: 'an issued certificate without issuer.json', expect: 'certificate-issuer-missing', build: async (context) => withEntry(await signedWithIssuer(context, issuerChain(context)), 'issuer.json', () => null)},
  {name: 'an issued certificate without issuer.sig', expect: 'certificate-issuer-missing', build: async (context) => withEntry(await signedWithIssuer(context, issuerChain(context)), 'issuer.sig', () => null)},
  {name: 'an issued certificate without any issuer file', expect: 'certificate-issuer-missing', build: async (context) => withEntry(withEntry(await signedWithIssuer(context, issuerChain(context)), 'issuer.sig', () => null), 'issuer.json', () => null)},
  {
    name: 'issuer files of another issuer certificate with the same key',
    expect: 'certificate-issuer-mismatch',
    build: async (context) => {
      const {issuer, leaf} = issuerChain(context)
      const twin = craftCertificate({...fieldsOf(issuer.files), certificateId: `cert_${'7'.repeat(32)}`}, context.pki.root.privateKey)
      const artifact = await signedWithIssuer(context, {issuer, leaf})
      return withEntry(withEntry(artifact, 'issuer.json', () => twin.json), 'issuer.sig', () => bytes(`${twin.sig}\n`))
    },
  },
  {
    name: 'issuer files of an unrelated issuer certificate',
    expect: 'certificate-untrusted',
    build: async (context) => {
      const other = issuerChain(context)
      const artifact = await signedWithIssuer(context, issuerChain(context))
      return withEntry(withEntry(artifact, 'issuer.json', () => other.issuer.files.json), 'issuer.sig', () => bytes(`${other.issuer.files.sig}\n`))
    },
  },
  {
    name: 'a certificate outliving its issuer',
    expect: 'certificate-outlives-issuer',
    build: (context) => {
      const {issuer} = issuerChain(context, {issuer: [validFrom, '2030-12-01T00:00:00Z']})
      const keyPair = generateKeyPair()
      const leafFields = {
        ...fieldsOf(context.pki.certificate),
        schemaVersion: 2,
        certificateId: `cert_${'6'.repeat(32)}`,
        publicKey: encodeBase64(keyPair.publicKey),
        notAfter: validTo,
        issuer: fieldsOf(issuer.files).certificateId,
      }
      const chain = {certificate: craftCertificate(leafFields, issuer.keyPair.privateKey), issuer: issuer.files}
      return forgeSample(context, {chain, privateKey: keyPair.privateKey})
    },
  },
  {
    name: 'an issuer certificate that is not an issuer',
    expect: 'certificate-wrong-purpose',
    build: (context) => {
      const notIssuer = issueFor(context.pki.root.privateKey, context.pki.rootKeyId, {usage: 'package'})
      const keyPair = generateKeyPair()
      const leafFields = {...fieldsOf(context.pki.certificate), schemaVersion: 2, certificateId: `cert_${'8'.repeat(32)}`, publicKey: encodeBase64(keyPair.publicKey), issuer: fieldsOf(notIssuer.files).certificateId}
      const chain = {certificate: craftCertificate(leafFields, notIssuer.keyPair.privateKey), issuer: notIssuer.files}
      return forgeSample(context, {chain, privateKey: keyPair.privateKey})
    },
  },

  // Publisher.
  {name: 'a manifest naming another publisher id', expect: 'publisher-mismatch', build: (context) => forgeSample(context, {publisherId: 'com.other'})},
  {name: 'a manifest without publisher.id', expect: 'valid', build: (context) => signedSample(context.pki, {publisherId: null})},
  {
    name: 'a service certificate (key usage registry) for a manifest naming another publisher id',
    expect: 'certificate-wrong-purpose',
    build: (context) => {
      const service = issueFor(context.pki.root.privateKey, context.pki.rootKeyId, {kind: 'service', id: 'store-bot', usage: 'registry'})
      return forgeSample(context, {chain: {certificate: service.files}, privateKey: service.keyPair.privateKey, publisherId: 'com.other'})
    },
  },
]

function signedWith(context: TamperContext, certificate: ReturnType<typeof issueFor>): Artifact {
  return forgeSample(context, {chain: {certificate: certificate.files}, privateKey: certificate.keyPair.privateKey})
}

function signedWithIssuer(context: TamperContext, chain: ReturnType<typeof issuerChain>): Promise<Artifact> {
  return signedSample(context.pki, {chain: {certificate: chain.leaf.files, issuer: chain.issuer.files}, privateKey: chain.leaf.keyPair.privateKey})
}

