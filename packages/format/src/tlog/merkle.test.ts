import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../hex.js';
import {
  EMPTY_TREE_HASH,
  appendedSubtrees,
  consistencyProof,
  inclusionProof,
  leafHash,
  memoryReader,
  nodeHash,
  rootFromInclusionProof,
  treeHash,
  verifyConsistency,
  verifyInclusion,
  type SubtreeReader,
} from './merkle.js';

// An independent RFC 6962 implementation, straight from the definitions (MTH, PATH, PROOF over
// slices of the data), with node:crypto — not the module under test.
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const refLeaf = (d: Uint8Array) => sha(new Uint8Array([0]), d);
const refNode = (l: Uint8Array, r: Uint8Array) => sha(new Uint8Array([1]), l, r);
const k2 = (n: number) => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};
function mth(d: Uint8Array[]): Uint8Array {
  if (d.length === 0) return sha();
  if (d.length === 1) return refLeaf(d[0]!);
  const k = k2(d.length);
  return refNode(mth(d.slice(0, k)), mth(d.slice(k)));
}
function refPath(m: number, d: Uint8Array[]): Uint8Array[] {
  if (d.length <= 1) return [];
  const k = k2(d.length);
  return m < k ? [...refPath(m, d.slice(0, k)), mth(d.slice(k))] : [...refPath(m - k, d.slice(k)), mth(d.slice(0, k))];
}
function refSubproof(m: number, d: Uint8Array[], b: boolean): Uint8Array[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const k = k2(d.length);
  return m <= k ? [...refSubproof(m, d.slice(0, k), b), mth(d.slice(k))] : [...refSubproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
}

// RFC 6962 test data (the leaves and roots used by certificate-transparency and
// transparency-dev/merkle): leaf inputs and the root of each prefix of 1..8 leaves.
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) => hexToBytes(h));
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const INCLUSION: Array<{ leaf: number; size: number; proof: string[] }> = [
  { leaf: 0, size: 8, proof: ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4'] },
  { leaf: 5, size: 8, proof: ['bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7'] },
  { leaf: 2, size: 3, proof: ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125'] },
  { leaf: 1, size: 5, proof: ['6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b'] },
];
const CONSISTENCY: Array<{ m: number; n: number; proof: string[] }> = [
  { m: 1, n: 8, proof: ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4'] },
  { m: 6, n: 8, proof: ['0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7'] },
  { m: 2, n: 5, proof: ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b'] },
  { m: 6, n: 7, proof: ['0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', 'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7'] },
];

const read8 = memoryReader(LEAVES.map(leafHash));
const hex = (p: Uint8Array[]) => p.map(bytesToHex);
const root = (n: number) => hexToBytes(ROOTS[n - 1]!);

describe('RFC 6962 hashing (fixed vectors)', () => {
  it('the empty tree is SHA-256 of nothing', () => {
    expect(bytesToHex(EMPTY_TREE_HASH)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(treeHash(0, read8)).toEqual(EMPTY_TREE_HASH);
  });
  it('computes the root of every prefix of the eight test leaves', () => {
    for (let n = 1; n <= 8; n++) expect(bytesToHex(treeHash(n, read8)), `size ${n}`).toBe(ROOTS[n - 1]);
  });
  it('agrees with the independent MTH on the test leaves', () => {
    for (let n = 0; n <= 8; n++) expect(treeHash(n, read8)).toEqual(mth(LEAVES.slice(0, n)));
  });
});

describe('inclusion proofs (fixed vectors)', () => {
  for (const v of INCLUSION) {
    it(`leaf ${v.leaf} in tree ${v.size}: generated, verified, and every corruption refused`, () => {
      expect(hex(inclusionProof(v.leaf, v.size, read8))).toEqual(v.proof);
      const proof = v.proof.map((h) => hexToBytes(h));
      const leaf = leafHash(LEAVES[v.leaf]!);
      expect(() => verifyInclusion(v.leaf, v.size, leaf, proof, root(v.size))).not.toThrow();
      const bad: Array<[number, number, Uint8Array, Uint8Array[], Uint8Array]> = [
        [v.leaf - 1, v.size, leaf, proof, root(v.size)],
        [v.leaf + 1, v.size, leaf, proof, root(v.size)],
        [v.leaf ^ 2, v.size, leaf, proof, root(v.size)],
        [v.leaf, v.size * 2, leaf, proof, root(v.size)],
        [v.leaf, Math.floor(v.size / 2), leaf, proof, root(v.size)],
        [v.leaf, v.size, leafHash(new TextEncoder().encode('WrongLeaf')), proof, root(v.size)],
        [v.leaf, v.size, leaf, proof, EMPTY_TREE_HASH],
        [v.leaf, v.size, leaf, [...proof, root(v.size)], root(v.size)],
        [v.leaf, v.size, leaf, [root(v.size), ...proof], root(v.size)],
        [v.leaf, v.size, leaf, proof.slice(0, -1), root(v.size)],
        [v.leaf, v.size, leaf, [...proof, new Uint8Array(0)], root(v.size)],
      ];
      for (let i = 0; i < proof.length; i++) {
        const p = proof.map((x) => x.slice());
        p[i]![0]! ^= 8;
        bad.push([v.leaf, v.size, leaf, p, root(v.size)]);
      }
      for (const [i, n, l, p, r] of bad) expect(() => verifyInclusion(i, n, l, p, r)).toThrow();
    });
  }
  it('a single-leaf tree has an empty proof whose root is the leaf hash', () => {
    const l = leafHash(new TextEncoder().encode('data'));
    expect(inclusionProof(0, 1, memoryReader([l]))).toEqual([]);
    expect(() => verifyInclusion(0, 1, l, [], l)).not.toThrow();
    expect(() => verifyInclusion(0, 1, l, [], EMPTY_TREE_HASH)).toThrow(/does not lead/);
  });
  it('refuses indexes outside the tree with E_USAGE (generation) and E_LOG_PROOF (verification)', () => {
    expect(() => inclusionProof(8, 8, read8)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => verifyInclusion(0, 0, EMPTY_TREE_HASH, [], EMPTY_TREE_HASH)).toThrow(expect.objectContaining({ code: 'E_LOG_PROOF' }));
    expect(() => verifyInclusion(2, 1, EMPTY_TREE_HASH, [], EMPTY_TREE_HASH)).toThrow(expect.objectContaining({ code: 'E_LOG_PROOF' }));
  });
});

describe('consistency proofs (fixed vectors)', () => {
  for (const v of CONSISTENCY) {
    it(`${v.m} → ${v.n}: generated, verified, and every corruption refused`, () => {
      expect(hex(consistencyProof(v.m, v.n, read8))).toEqual(v.proof);
      const proof = v.proof.map((h) => hexToBytes(h));
      const [r1, r2] = [root(v.m), root(v.n)];
      expect(() => verifyConsistency(v.m, v.n, r1, r2, proof)).not.toThrow();
      const bad: Array<[number, number, Uint8Array, Uint8Array, Uint8Array[]]> = [
        [v.m - 1, v.n, r1, r2, proof],
        [v.m + 1, v.n, r1, r2, proof],
        [v.m ^ 2, v.n, r1, r2, proof],
        [v.m, v.n * 2, r1, r2, proof],
        [v.m, Math.floor(v.n / 2), r1, r2, proof],
        [v.m, v.n, EMPTY_TREE_HASH, r2, proof],
        [v.m, v.n, r1, EMPTY_TREE_HASH, proof],
        [v.m, v.n, r2, r1, proof],
        [v.m, v.n, r1, r2, []],
        [v.m, v.n, r1, r2, [...proof, r1]],
        [v.m, v.n, r1, r2, [...proof, r2]],
        [v.m, v.n, r1, r2, [r1, ...proof]],
        [v.m, v.n, r1, r2, [r2, ...proof]],
        [v.m, v.n, r1, r2, [proof[0]!, ...proof]],
        [v.m, v.n, r1, r2, proof.slice(0, -1)],
      ];
      for (let i = 0; i < proof.length; i++) {
        const p = proof.map((x) => x.slice());
        p[i]![0]! ^= 16;
        bad.push([v.m, v.n, r1, r2, p]);
      }
      for (const [m, n, a, b, p] of bad) expect(() => verifyConsistency(m, n, a, b, p), `${m}→${n}`).toThrow();
    });
  }
  it('handles the trivial cases as RFC 9162 does', () => {
    const some = hexToBytes(ROOTS[0]!);
    expect(() => verifyConsistency(0, 0, EMPTY_TREE_HASH, EMPTY_TREE_HASH, [])).not.toThrow();
    expect(() => verifyConsistency(0, 5, EMPTY_TREE_HASH, some, [])).not.toThrow();
    expect(() => verifyConsistency(3, 3, some, some, [])).not.toThrow();
    expect(() => verifyConsistency(3, 3, some, root(3), [])).toThrow(/two different roots/);
    expect(() => verifyConsistency(1, 1, some, some, [some])).toThrow(/must be empty/);
    expect(() => verifyConsistency(0, 1, EMPTY_TREE_HASH, some, [some])).toThrow(/must be empty/);
    expect(() => verifyConsistency(2, 1, some, some, [])).toThrow(/cannot be a prefix/);
    expect(() => verifyConsistency(1, 2, some, root(2), [])).toThrow(/empty/);
    expect(consistencyProof(4, 4, read8)).toEqual([]);
    expect(() => consistencyProof(5, 4, read8)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });
});

describe('against the independent implementation on every small tree', () => {
  const data = Array.from({ length: 40 }, (_, i) => new TextEncoder().encode(`leaf ${i}`));
  const read = memoryReader(data.map(leafHash));
  // The reference over ranges of `data`, memoized (the same definitions as mth/refPath/refSubproof).
  const memo = new Map<string, Uint8Array>();
  const mthR = (a: number, b: number): Uint8Array => {
    const key = `${a}:${b}`;
    let h = memo.get(key);
    if (!h) {
      h = b - a === 0 ? sha() : b - a === 1 ? refLeaf(data[a]!) : refNode(mthR(a, a + k2(b - a)), mthR(a + k2(b - a), b));
      memo.set(key, h);
    }
    return h;
  };
  const pathR = (m: number, a: number, b: number): Uint8Array[] => {
    if (b - a <= 1) return [];
    const k = k2(b - a);
    return m < k ? [...pathR(m, a, a + k), mthR(a + k, b)] : [...pathR(m - k, a + k, b), mthR(a, a + k)];
  };
  const subR = (m: number, a: number, b: number, complete: boolean): Uint8Array[] => {
    if (m === b - a) return complete ? [] : [mthR(a, b)];
    const k = k2(b - a);
    return m <= k ? [...subR(m, a, a + k, complete), mthR(a + k, b)] : [...subR(m - k, a + k, b, false), mthR(a, a + k)];
  };
  it('the range reference equals the slice reference', () => {
    expect(mthR(0, 13)).toEqual(mth(data.slice(0, 13)));
    expect(pathR(5, 0, 13)).toEqual(refPath(5, data.slice(0, 13)));
    expect(subR(5, 0, 13, true)).toEqual(refSubproof(5, data.slice(0, 13), true));
  });
  it('every inclusion proof of trees 1..40 equals PATH and verifies', () => {
    for (let n = 1; n <= 40; n++) {
      const r = mthR(0, n);
      expect(bytesToHex(treeHash(n, read))).toBe(bytesToHex(r));
      for (let m = 0; m < n; m++) {
        const p = inclusionProof(m, n, read);
        expect(hex(p).join()).toBe(hex(pathR(m, 0, n)).join());
        verifyInclusion(m, n, refLeaf(data[m]!), p, r); // throws when it does not verify
      }
    }
  });
  it('every consistency proof between trees 1..40 equals PROOF and verifies', () => {
    for (let n = 1; n <= 40; n++) {
      for (let m = 1; m < n; m++) {
        const p = consistencyProof(m, n, read);
        expect(hex(p).join()).toBe(hex(subR(m, 0, n, true)).join());
        verifyConsistency(m, n, mthR(0, m), mthR(0, n), p); // throws when it does not verify
        // The proof does not prove consistency with a different old tree.
        let refused = false;
        try {
          verifyConsistency(m, n, mthR(1, m + 1), mthR(0, n), p);
        } catch {
          refused = true;
        }
        expect(refused, `${m}→${n} with another old tree`).toBe(true);
      }
    }
  });
});

describe('stored hashes (appendedSubtrees)', () => {
  it('building the tree one leaf at a time stores exactly the complete subtrees', () => {
    const stored = new Map<string, Uint8Array>();
    const read: SubtreeReader = (l, i) => {
      const h = stored.get(`${l}/${i}`);
      if (!h) throw new Error(`missing ${l}/${i}`);
      return h;
    };
    const leaves = Array.from({ length: 77 }, (_, i) => leafHash(new TextEncoder().encode(String(i))));
    const mem = memoryReader(leaves);
    let count = 0;
    leaves.forEach((leaf, i) => {
      for (const s of appendedSubtrees(i, leaf, read)) {
        stored.set(`${s.level}/${s.index}`, s.hash);
        count++;
      }
      expect(treeHash(i + 1, read)).toEqual(treeHash(i + 1, mem));
    });
    expect(count).toBe(77 * 2 - 4); // 2n − popcount(n): 77 = 0b1001101 has four ones
    expect(stored.get('6/0')).toEqual(mem(6, 0));
  });
});

describe('arithmetic beyond 32 bits', () => {
  // The RFC 9162 loop with BigInt bit operations, to compare the verifier's arithmetic on sizes
  // where `>>` and `&` on numbers would wrap.
  function bigRoot(index: bigint, size: bigint, leaf: Uint8Array, proof: Uint8Array[]): Uint8Array {
    let fn = index;
    let sn = size - 1n;
    let r = leaf;
    for (const p of proof) {
      if ((fn & 1n) === 1n || fn === sn) {
        r = refNode(p, r);
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      } else r = refNode(r, p);
      fn >>= 1n;
      sn >>= 1n;
    }
    if (sn !== 0n) throw new Error('short');
    return r;
  }
  it('matches a BigInt implementation for indexes near 2^40 and 2^52', () => {
    const proofOf = (len: number) => Array.from({ length: len }, (_, i) => sha(new Uint8Array([i])));
    for (const [index, size] of [
      [2 ** 40 + 12345, 2 ** 40 + 99999],
      [2 ** 52 - 7, 2 ** 52 + 3],
      [4294967296, 4294967297],
      [2 ** 45 - 1, 2 ** 45],
    ] as const) {
      // The proof length the shape needs: try lengths until the BigInt loop accepts one.
      let len = 1;
      while (len < 64) {
        try {
          bigRoot(BigInt(index), BigInt(size), EMPTY_TREE_HASH, proofOf(len));
          break;
        } catch {
          len++;
        }
      }
      const proof = proofOf(len);
      expect(rootFromInclusionProof(index, size, EMPTY_TREE_HASH, proof)).toEqual(bigRoot(BigInt(index), BigInt(size), EMPTY_TREE_HASH, proof));
    }
  });
  it('the node hash prefix is 0x01 and the leaf prefix 0x00', () => {
    const a = sha(new Uint8Array([1]));
    expect(nodeHash(a, a)).toEqual(refNode(a, a));
    expect(leafHash(a)).toEqual(refLeaf(a));
  });
});

describe('frontier appends (appendLeaves)', () => {
  it('gives the same stored subtrees and roots as appending one leaf at a time, in any batch sizes', async () => {
    const { appendLeaves, frontierNodes } = await import('./merkle.js');
    const leaves = Array.from({ length: 100 }, (_, i) => leafHash(new TextEncoder().encode(`x${i}`)));
    const mem = memoryReader(leaves);
    let size = 0;
    let frontier: Uint8Array[] = [];
    const stored = new Map<string, string>();
    for (const batch of [1, 2, 3, 7, 1, 16, 30, 40]) {
      const r = appendLeaves(size, frontier, leaves.slice(size, size + batch));
      for (const s of r.stored) stored.set(`${s.level}/${s.index}`, bytesToHex(s.hash));
      size = r.size;
      frontier = r.frontier;
      expect(bytesToHex(r.root)).toBe(bytesToHex(treeHash(size, mem)));
      expect(frontierNodes(size).map((n) => bytesToHex(mem(n.level, n.index)))).toEqual(frontier.map(bytesToHex));
    }
    expect(size).toBe(100);
    // Exactly the complete subtrees of a 100-leaf tree: 2·100 − popcount(100).
    expect(stored.size).toBe(200 - 3);
    for (const [k, h] of stored) {
      const [l, i] = k.split('/').map(Number);
      expect(h).toBe(bytesToHex(mem(l!, i!)));
    }
    expect(frontierNodes(0)).toEqual([]);
    expect(frontierNodes(13)).toEqual([{ level: 3, index: 0 }, { level: 2, index: 2 }, { level: 0, index: 12 }]);
    expect(() => appendLeaves(3, [], [])).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(appendLeaves(0, [], []).root).toEqual(EMPTY_TREE_HASH);
  });
});
