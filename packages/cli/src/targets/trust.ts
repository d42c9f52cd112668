/**
 * Trust tiers (spec/pack.md §11 "Trust"): which installed packages are delivered as the
 * project's own instructions — outside the untrusted fence, under a heading naming
 * package@version — and which stay fenced.
 *
 * A package is delivered as instructions only when all hold:
 * 1. it is listed in `trust.instructions` of ctxpkg.json (itself or its scope);
 * 2. ctxpkg.lock pins a signer key for it (it was signed, and the key was pinned at install);
 * 3. this user's sealed verification record (`.ctxpkg/verified.json`) vouches for the locked
 *    artifact with that same signer, name and version (the signature was verified by this
 *    user's ctxpkg; a committed or copied `.ctxpkg/` opens no seal);
 * 4. the merged graph delivers that version (it comes from the sealed store, context.ts).
 * A listed package failing any check stays fenced and the decision says why (`reason`), which
 * sync and `ctxpkg trust ls` print as a warning.
 */
import type { MergedGraph } from '@ctxpkg/format';
import { loadUserConfig, savedToken, type UserConfig } from '../config.js';
import type { CliDeps } from '../deps.js';
import { readLock } from '../install/lockio.js';
import { sealKey } from '../install/seal.js';
import { readVerified } from '../install/verified.js';
import { trustListed } from '../project.js';

export interface TrustDecision {
  package: string;
  version: string;
  /** Named by `trust.instructions`. */
  listed: boolean;
  /** Delivered as instructions (listed and every check passed). */
  trusted: boolean;
  /** Why a listed package stays fenced. */
  reason?: string;
  /** The pinned signer key (64 hex), when there is one. */
  signer?: string;
}

/** The trust decision of every installed package (sorted by name). */
export function trustDecisions(root: string, instructions: readonly string[], graph: Pick<MergedGraph, 'inputs'>, deps: Pick<CliDeps, 'env' | 'homeDir'>): TrustDecision[] {
  const listedAny = graph.inputs.some((i) => trustListed(instructions, i.package));
  const lock = listedAny ? readLock(root).state : undefined;
  const verified = listedAny ? readVerified(root, sealKey(deps, false)) : undefined;
  return [...graph.inputs]
    .sort((a, b) => (a.package < b.package ? -1 : a.package > b.package ? 1 : 0))
    .map((i) => {
      const d: TrustDecision = { package: i.package, version: i.version, listed: trustListed(instructions, i.package), trusted: false };
      const e = lock?.packages.get(i.package);
      if (e?.signer_public_key) d.signer = e.signer_public_key;
      if (!d.listed) return d;
      const facts = e ? verified?.artifacts.get(e.artifact_sha256) : undefined;
      if (!e) d.reason = 'not in ctxpkg.lock';
      else if (e.version !== i.version) d.reason = `ctxpkg.lock has ${e.version}, the merged graph ${i.version}`;
      else if (!e.signer_public_key) d.reason = 'unsigned: no signer key pinned in ctxpkg.lock';
      else if (!facts) d.reason = 'not verified by your ctxpkg on this machine (run `ctxpkg install`)';
      else if (facts.signer_public_key !== e.signer_public_key || facts.name !== i.package || facts.version !== i.version) d.reason = 'the verified signature does not match the signer pinned in ctxpkg.lock';
      else d.trusted = true;
      return d;
    });
}

/** The packages delivered as instructions. */
export function trustedSet(decisions: readonly TrustDecision[]): Set<string> {
  return new Set(decisions.filter((d) => d.trusted).map((d) => d.package));
}

/** Warnings for listed packages that stay fenced. */
export function trustWarnings(decisions: readonly TrustDecision[]): string[] {
  return decisions.filter((d) => d.listed && !d.trusted).map((d) => `${d.package}@${d.version} is listed in "trust.instructions" but stays inside the untrusted fence: ${d.reason}`);
}

/**
 * The scopes that are this user's or this project's own (issue new-user 2 item 10): every scope
 * ctxpkg.json binds to a registry (`registries`), and every scope the user config binds to a
 * registry for which it saves a publish (`ctxp_`) or owner (`ctxo_`) token — a team member who
 * publishes there. An unreadable user config counts as none (the answer is only advice).
 */
export function ownScopes(projectRegistries: Readonly<Record<string, string>>, deps: Pick<CliDeps, 'env' | 'homeDir'>): string[] {
  const out = new Set(Object.keys(projectRegistries));
  let user: UserConfig | undefined;
  try {
    user = loadUserConfig(deps);
  } catch {
    user = undefined;
  }
  for (const [scope, url] of Object.entries(user?.registries ?? {})) {
    const tok = user ? savedToken(user, url, scope) : undefined;
    if (tok !== undefined && (tok.startsWith('ctxp_') || tok.startsWith('ctxo_'))) out.add(scope);
  }
  return [...out].sort();
}

/**
 * One line for sync/install when nothing installed is delivered as instructions, nothing is
 * listed in `trust.instructions`, and installed packages come from `own` scopes (`ownScopes`):
 * the team's own rules then reach every agent fenced as reference data, which the user would not
 * otherwise learn. `undefined` otherwise.
 */
export function untrustedOwnHint(decisions: readonly TrustDecision[], own: readonly string[]): string | undefined {
  if (decisions.length === 0 || decisions.some((d) => d.listed || d.trusted)) return undefined;
  const mine = new Set(own);
  const scopes = [...new Set(decisions.map((d) => d.package.slice(0, d.package.indexOf('/'))).filter((s) => mine.has(s)))].sort();
  if (scopes.length === 0) return undefined;
  const names = scopes.join(', ');
  return `the packages of ${names} reach your agents as reference data inside the untrusted fence, not as instructions; if they are your team's rules, run \`ctxpkg trust add ${scopes.join(' ')}\``;
}
