/** A manifest valid at development level with every field inspect describes, entrypoints out of order. */
export function describedManifest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    manifestVersion: 1,
    id: 'com.example.described',
    name: 'Described',
    version: '2.0.0-beta.1',
    description: 'A plugin made to be inspected.',
    entrypoints: {
      'win-x64': {executable: 'runtimes/win-x64/Described.dll', arguments: ['--mode', 'full'], runtime: {kind: 'FrameworkDependent', dotnetVersion: '8.0'}},
      'linux-x64': {executable: 'runtimes/linux-x64/described'},
      'osx-arm64': {executable: 'runtimes/osx-arm64/described', arguments: []},
    },
    permissions: ['host:variables', 'telepathy:read'],
    languages: ['en', 'pt-BR'],
    dependencies: [{id: 'com.example.base', versionRange: '>=1.0.0'}, {id: 'com.example.extra', optional: true}],
    conflicts: [{id: 'com.example.rival', versionRange: '<2.0.0'}],
    iconPacks: [{id: 'com.example.icons'}],
    compatibility: {sdk: '>=2.0.0', protocol: {minimum: 1, maximum: 2}},
    ...extra,
  }
}

/** The described plugin's payload: the osx-arm64 executable is missing on purpose. */
export const describedPayload = {
  'runtimes/linux-x64/described': 'ELF pretend\n',
  'runtimes/win-x64/Described.dll': 'MZ pretend\n',
}

/** One signature block per shape inspect reports. */
export const signatureCases = [
  {shape: null, signature: undefined},
  {
    shape: 'well-formed',
    signature: {algorithm: 'ed25519', keyId: `cert_${'1'.repeat(32)}`, value: Buffer.alloc(64, 0xab).toString('base64'), signedAt: '2024-05-06T07:08:09Z'},
  },
  {
    shape: 'unrecognized-algorithm',
    signature: {algorithm: 'rsa-pss', keyId: `cert_${'1'.repeat(32)}`, value: Buffer.alloc(256, 1).toString('base64'), signedAt: '2024-05-06T07:08:09Z'},
  },
  {
    shape: 'invalid-length',
    signature: {algorithm: 'ed25519', keyId: `cert_${'1'.repeat(32)}`, value: Buffer.alloc(63, 0xab).toString('base64'), signedAt: '2024-05-06T07:08:09Z'},
  },
] as const
