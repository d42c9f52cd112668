/**
 * The sync receipt `.ctxpkg/receipts/sync.json` (spec/pack.md §11 "Receipt"): what the last sync
 * delivered in each tier, to which files, and every installed item it left to on-demand access,
 * with content hashes and no raw content (spec/pack.md §10).
 *
 * `{ "format": "ctxpkg-sync-receipt-v1", "now", "targets", "always_on": <pack receipt>,
 *    "rule_sets": [{ "package", "version", "patterns", "sources", "files", "receipt" }],
 *    "on_demand_rule_sets"?: [{ "package", "version", "patterns", "sources" }],
 *    "files": [{ "path", "target", "tier" }] }`
 * Source paths are package text: written with their secrets redacted (`receiptId`).
 */
import { join } from 'node:path';
import type { SyncTarget } from '@ctxpkg/format';
import { receiptId } from '@ctxpkg/format/pack/receipt';
import { writeFileAtomic } from '../fsutil.js';
import type { Delivery } from './delivery.js';
import type { DesiredOutput } from './outputs.js';

export const SYNC_RECEIPT = '.ctxpkg/receipts/sync.json';

/** Write the receipt of one sync; returns its project-relative path. */
export function writeSyncReceipt(root: string, now: string, targets: readonly SyncTarget[], delivery: Delivery, outputs: readonly DesiredOutput[]): string {
  const body = {
    format: 'ctxpkg-sync-receipt-v1',
    now,
    targets,
    always_on: delivery.alwaysOn.receipt,
    rule_sets: delivery.ruleSets.map((rs) => ({
      package: rs.set.package,
      version: rs.set.version,
      patterns: rs.patterns,
      sources: rs.set.sources.map(receiptId),
      files: [...rs.files.values()],
      receipt: rs.receipt,
    })),
    // Rule sets whose header alone exceeds the rule-file cap: no rule file, listed on demand.
    ...(delivery.onDemandSets.length > 0 ? { on_demand_rule_sets: delivery.onDemandSets.map((rs) => ({ package: rs.set.package, version: rs.set.version, patterns: rs.patterns, sources: rs.set.sources.map(receiptId) })) } : {}),
    files: outputs.map((o) => ({ path: o.path, target: o.target, tier: o.tier })),
  };
  writeFileAtomic(join(root, SYNC_RECEIPT), JSON.stringify(body, null, 2) + '\n');
  return SYNC_RECEIPT;
}
