/**
 * The trust report answered with every accepted publish and kept with the version
 * (spec/registry.md "Trust report"). It lists what was checked and, explicitly, what was not —
 * it never claims more than the gate verified.
 */
import type { GateResult } from './gate.js';

export const TRUST_REPORT_SCHEMA = 'ctxpkg-trust-report-v1';

/** Limits of what any publish proves; always listed as not checked. */
const ALWAYS_SKIPPED: ReadonlyArray<{ check: string; reason: string }> = [
  {
    check: 'unsigned_manifest_fields',
    reason:
      'the signature covers only name, version and integrity.sha256; description, tags, dependencies, kind, visibility and the other manifest fields are not authenticated by it',
  },
  { check: 'dependencies', reason: 'declared dependencies are not resolved or checked against this registry at publish time' },
  { check: 'content_accuracy', reason: 'the registry does not judge whether the content is true, current or safe to give an agent (e.g. prompt injection)' },
  { check: 'signer_identity', reason: 'the key is checked against the keys registered for the namespace; who holds the private key is not established' },
];

export interface TrustReport {
  schema: typeof TRUST_REPORT_SCHEMA;
  package: string;
  version: string;
  artifact_sha256: string;
  size_bytes: number;
  checked: Array<{ check: string; result: 'pass'; detail: string }>;
  not_checked: Array<{ check: string; reason: string }>;
}

/**
 * Build the report for an accepted publish. `signer` says how the signing key was accepted;
 * `maxBytes` is the size cap that was enforced.
 */
export function buildTrustReport(input: {
  full: string;
  version: string;
  artifactSha256: string;
  sizeBytes: number;
  maxBytes: number;
  gate: GateResult;
  signer: 'first-publish' | 'registered';
}): TrustReport {
  const { gate } = input;
  const checked: TrustReport['checked'] = [
    { check: 'size', result: 'pass', detail: `${input.sizeBytes} bytes, limit ${input.maxBytes}` },
    ...gate.checks.map((c) => ({ check: c.check, result: 'pass' as const, detail: c.detail })),
    {
      check: 'signer_key',
      result: 'pass',
      detail:
        input.signer === 'first-publish'
          ? `first publish to the namespace: key ${gate.signer_public_key} recorded as its signer`
          : `key ${gate.signer_public_key} is registered for the namespace`,
    },
    { check: 'immutability', result: 'pass', detail: 'no version of equal SemVer precedence existed; this version can never be replaced' },
  ];
  return {
    schema: TRUST_REPORT_SCHEMA,
    package: input.full,
    version: input.version,
    artifact_sha256: input.artifactSha256,
    size_bytes: input.sizeBytes,
    checked,
    not_checked: [...gate.skipped, ...ALWAYS_SKIPPED],
  };
}
