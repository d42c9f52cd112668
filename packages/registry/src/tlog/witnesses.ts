/**
 * Getting the registry's checkpoints cosigned by its witnesses (spec/transparency.md §8), with the
 * c2sp.org/tlog-witness `add-checkpoint` call: the latest checkpoint, a consistency proof from the
 * size the witness last cosigned (learned from a 409 answer), then the returned cosignature lines —
 * checked against the witness key — stored for that tree size. Calls are serialised per process;
 * several nodes may submit the same checkpoint (the witness answers 409 or cosigns again).
 */
import {
  CtxpkgError,
  consistencyProof,
  formatAddCheckpoint,
  formatVerifierKey,
  openNote,
  parseVerifierKey,
  type NoteVerifier,
} from '@ctxpkg/format';
import type { Logger } from '../options.js';
import type { LogStore } from '../store/types.js';
import { withStoredHashes } from './proofs.js';

/** A witness the registry submits to: its cosigner vkey (type 0x04) and its submission prefix URL. */
export interface WitnessConfig {
  vkey: string;
  url: string;
}

/** Parse `<vkey>=<url>` (the `--witness` flag). Throws `E_NOTE` for a bad key, `E_USAGE` for a bad URL. */
export function parseWitnessFlag(text: string): WitnessConfig {
  const eq = text.search(/=https?:\/\//);
  const vkey = eq < 0 ? text : text.slice(0, eq);
  const url = eq < 0 ? '' : text.slice(eq + 1).replace(/\/+$/, '');
  parseVerifierKey(vkey);
  if (!/^https?:\/\/[^\s]+$/.test(url)) {
    throw new CtxpkgError('E_USAGE', `--witness needs <vkey>=<url>, got ${JSON.stringify(text.slice(0, 120))}`, {
      hint: 'e.g. --witness witness.example/w1+1a2b3c4d+BCD…=https://witness.example/w1',
    });
  }
  return { vkey, url };
}

function keyLabel(v: NoteVerifier): string {
  return `${v.name}+${v.keyId.toString(16).padStart(8, '0')}`;
}

export class WitnessSync {
  private readonly witnesses: Array<{ verifier: NoteVerifier; url: string }>;
  /** The size each witness told us it has (from 409 answers or our last success). */
  private readonly known = new Map<string, number>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: LogStore,
    configs: readonly WitnessConfig[],
    private readonly fetchFn: typeof fetch,
    private readonly logger: Logger,
  ) {
    this.witnesses = configs.map((c) => ({ verifier: parseVerifierKey(c.vkey), url: c.url }));
  }

  /** The configured witness keys (vkeys), for `GET /v1/log`. */
  get vkeys(): string[] {
    return this.witnesses.map((w) => formatVerifierKey(w.verifier));
  }

  get enabled(): boolean {
    return this.witnesses.length > 0;
  }

  /** Submit the latest checkpoint to every witness that has not cosigned it (serialised). Never rejects. */
  sync(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    const run = this.chain.then(() => this.syncOnce()).catch((err) => {
      this.logger({ msg: 'witness sync failed', time: new Date().toISOString(), error: (err as Error).message });
    });
    this.chain = run;
    return run;
  }

  private async syncOnce(): Promise<void> {
    const cp = await this.log.checkpoint();
    if (!cp) return;
    const have = new Set((await this.log.cosignatures(cp.size)).map((l) => l.split(' ')[1]));
    for (const w of this.witnesses) {
      if (have.has(w.verifier.name)) continue;
      await this.submit(w, cp.size, cp.note).catch((err) => {
        this.logger({ msg: 'witness submission failed', time: new Date().toISOString(), witness: keyLabel(w.verifier), error: (err as Error).message });
      });
    }
  }

  private async submit(w: { verifier: NoteVerifier; url: string }, size: number, note: string): Promise<void> {
    const label = keyLabel(w.verifier);
    for (let attempt = 0; attempt < 3; attempt++) {
      const old = Math.min(this.known.get(label) ?? 0, size);
      const proof = old === 0 ? [] : await withStoredHashes(this.log, (read) => consistencyProof(old, size, read));
      const res = await this.fetchFn(`${w.url}/add-checkpoint`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: formatAddCheckpoint({ oldSize: old, proof, checkpoint: note }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = await res.text();
      if (res.status === 409) {
        const m = /^(0|[1-9][0-9]*)\n?$/.exec(body);
        if (!m) throw new Error(`witness ${label} answered 409 without a tree size`);
        this.known.set(label, Number(m[1]));
        if (Number(m[1]) > size) throw new Error(`witness ${label} has seen a larger tree (${m[1]}) than ours (${size})`);
        continue;
      }
      if (res.status !== 200) throw new Error(`witness ${label} answered ${res.status}: ${body.slice(0, 200)}`);
      const lines = body.split('\n').filter((l) => l !== '');
      // Keep only cosignatures that verify with the configured key (the note rules: others ignored).
      const opened = await openNote(note + lines.map((l) => l + '\n').join(''), [w.verifier]);
      for (const s of opened.verified) await this.log.addCosignature(size, label, s.line);
      this.known.set(label, size);
      return;
    }
    throw new Error(`witness ${label} kept answering 409`);
  }
}
