/**
 * Private keys saved in binary form (DER, as `openssl … -outform DER` writes them, and OpenSSH's own key
 * format without its base64 armour), recognised by their ASN.1 shape: a file that is exactly one such
 * structure is a key, whatever it is called.
 */

/** Files larger than this are no key: the largest RSA keys in DER are about 10 KiB. */
const maxKeyBytes = 64 * 1024

const sequence = 0x30
const integer = 0x02
const octetString = 0x04
const objectIdentifier = 0x06

/** The start of OpenSSH's private key format (PROTOCOL.key): the magic string and its NUL. */
const openSshMagic = Buffer.from('openssh-key-v1\0', 'latin1')

/** The password-based encryption schemes of PKCS#5 (1.2.840.113549.1.5) and PKCS#12 (1.2.840.113549.1.12.1), as OID content bytes. */
const passwordEncryptionArcs = [Buffer.from([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05]), Buffer.from([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01])]

/** One DER element: its tag, where its content starts and where the element ends. */
interface Element {
  tag: number
  start: number
  end: number
}

/**
 * What private key `bytes` hold in binary form (`PKCS#8`, `PKCS#8, encrypted`, `PKCS#1 RSA`, `DSA`,
 * `SEC1 EC`, `OpenSSH`), or null when they are not one.
 */
export function derPrivateKeyKind(bytes: Uint8Array): string | null {
  if (bytes.byteLength > maxKeyBytes) return null
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.subarray(0, openSshMagic.length).equals(openSshMagic)) return 'OpenSSH'
  const outer = readElement(view, 0, view.length)
  if (outer === null || outer.tag !== sequence || outer.end !== view.length) return null
  const children = readChildren(view, outer)
  if (children === null || children.length < 2) return null
  return privateKeyInfo(view, children) ?? encryptedPrivateKeyInfo(view, children) ?? integerKey(view, children) ?? ecPrivateKey(view, children)
}

/** PKCS#8 PrivateKeyInfo / OneAsymmetricKey: version 0 or 1, an AlgorithmIdentifier, the key as an OCTET STRING, then optional [0] and [1]. */
function privateKeyInfo(view: Buffer, children: Element[]): string | null {
  const [version, algorithm, key, ...rest] = children
  if (!isSmallInteger(view, version, [0, 1]) || algorithm?.tag !== sequence || key?.tag !== octetString) return null
  if (readChildren(view, algorithm)?.[0]?.tag !== objectIdentifier) return null
  return rest.every((element) => element.tag === 0xa0 || element.tag === 0x81 || element.tag === 0xa1) ? 'PKCS#8' : null
}

/** PKCS#8 EncryptedPrivateKeyInfo: a password-based encryption AlgorithmIdentifier and the encrypted key. */
function encryptedPrivateKeyInfo(view: Buffer, children: Element[]): string | null {
  const [algorithm, data] = children
  if (children.length !== 2 || algorithm?.tag !== sequence || data?.tag !== octetString) return null
  const oid = readChildren(view, algorithm)?.[0]
  if (oid?.tag !== objectIdentifier) return null
  const arc = view.subarray(oid.start, oid.end)
  return passwordEncryptionArcs.some((prefix) => arc.length > prefix.length && arc.subarray(0, prefix.length).equals(prefix)) ? 'PKCS#8, encrypted' : null
}

/** PKCS#1 RSAPrivateKey (version 0 and eight INTEGERs, or version 1 and other primes) and OpenSSL's DSA key (version 0 and five INTEGERs). */
function integerKey(view: Buffer, children: Element[]): string | null {
  const integers = children.filter((element) => element.tag === integer).length
  if (isSmallInteger(view, children[0], [0]) && integers === children.length && integers === 9) return 'PKCS#1 RSA'
  if (isSmallInteger(view, children[0], [1]) && integers === 9 && children.length === 10 && children[9]!.tag === sequence) return 'PKCS#1 RSA'
  if (isSmallInteger(view, children[0], [0]) && integers === children.length && integers === 6) return 'DSA'
  return null
}

/** SEC1 ECPrivateKey: version 1, the key as an OCTET STRING, then optional [0] parameters and [1] public key. */
function ecPrivateKey(view: Buffer, children: Element[]): string | null {
  const [version, key, ...rest] = children
  if (!isSmallInteger(view, version, [1]) || key?.tag !== octetString || rest.length > 2) return null
  // [0] before [1], each at most once.
  return rest.every((element, index) => (element.tag === 0xa0 || element.tag === 0xa1) && (index === 0 || element.tag > rest[index - 1]!.tag)) ? 'SEC1 EC' : null
}

/** True for a one-byte INTEGER holding one of `values`. */
function isSmallInteger(view: Buffer, element: Element | undefined, values: readonly number[]): boolean {
  return element?.tag === integer && element.end - element.start === 1 && values.includes(view[element.start]!)
}

/** The elements that exactly fill a constructed element's content, or null when they do not. */
function readChildren(view: Buffer, parent: Element): Element[] | null {
  const children: Element[] = []
  for (let offset = parent.start; offset < parent.end; ) {
    const child = readElement(view, offset, parent.end)
    if (child === null) return null
    children.push(child)
    offset = child.end
  }
  return children
}

/** The element at `offset` (a one-byte tag and a definite length of at most four bytes) ending by `limit`, or null. */
function readElement(view: Buffer, offset: number, limit: number): Element | null {
  if (offset + 2 > limit) return null
  const tag = view[offset]!
  let length = view[offset + 1]!
  let start = offset + 2
  if (length & 0x80) {
    const count = length & 0x7f
    if (count === 0 || count > 4 || start + count > limit) return null
    length = 0
    for (let i = 0; i < count; i++) length = length * 256 + view[start + i]!
    start += count
  }
  const end = start + length
  return (tag & 0x1f) === 0x1f || end > limit ? null : {tag, start, end}
}
