import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitProbe } from './commit-probe.js';

let dir = '';
let mine: Database.Database;
let other: Database.Database;

function open(): Database.Database {
  const db = new Database(join(dir, 'x.sqlite'));
  db.pragma('journal_mode = WAL');
  return db;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxpkg-probe-'));
  mine = open();
  mine.exec('CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT)');
  other = open();
});

afterEach(async () => {
  mine.close();
  other.close();
  await rm(dir, { recursive: true, force: true });
});

const write = (db: Database.Database, v: string) => db.prepare('INSERT INTO t (v) VALUES (?)').run(v);

describe.each([
  ['the wal-index header', () => join(dir, 'x.sqlite-shm'), true],
  ['PRAGMA data_version alone (no wal-index file)', () => join(dir, 'missing-shm'), false],
])('CommitProbe over %s', (_label, shm, fast) => {
  it('answers true once after each commit by another connection, false otherwise', () => {
    const probe = new CommitProbe(mine, shm());
    expect(probe.usesWalIndex).toBe(fast);
    expect(probe.changed()).toBe(true); // first call
    expect(probe.changed()).toBe(false);
    for (let i = 0; i < 50; i++) {
      write(other, `o${i}`);
      expect(probe.changed()).toBe(true);
      expect(probe.changed()).toBe(false);
    }
    probe.close();
  });

  it('ignores commits of its own connection (they invalidate explicitly), like data_version', () => {
    const probe = new CommitProbe(mine, shm());
    probe.changed();
    write(mine, 'mine');
    expect(probe.changed()).toBe(false);
    write(other, 'other');
    expect(probe.changed()).toBe(true);
    probe.close();
  });

  it('sees a commit that follows a WAL reset with the same frame count as before', () => {
    const probe = new CommitProbe(mine, shm());
    other.pragma('wal_checkpoint(TRUNCATE)');
    write(other, 'a');
    const frames = () => (fast ? new Uint32Array(readFileSync(shm()).buffer, 0, 12)[4] : 0);
    const before = frames();
    expect(probe.changed()).toBe(true);
    // Checkpoint and truncate: the next commit restarts the WAL at frame 1 with new salts, so the
    // header's frame count (mxFrame) comes back to the value seen last — the header still differs.
    other.pragma('wal_checkpoint(TRUNCATE)');
    write(other, 'a');
    expect(frames()).toBe(before);
    expect(probe.changed()).toBe(true);
    expect(probe.changed()).toBe(false);
    probe.close();
  });

  it('stays exact after close (PRAGMA only)', () => {
    const probe = new CommitProbe(mine, shm());
    probe.changed();
    probe.close();
    probe.close();
    expect(probe.usesWalIndex).toBe(false);
    write(other, 'x');
    expect(probe.changed()).toBe(true);
    expect(probe.changed()).toBe(false);
  });
});

describe('CommitProbe fallback', () => {
  it('refuses a file that is not an initialised wal-index and uses PRAGMA data_version', async () => {
    const { writeFile } = await import('node:fs/promises');
    const fake = join(dir, 'fake-shm');
    await writeFile(fake, Buffer.alloc(4096, 7));
    const probe = new CommitProbe(mine, fake);
    expect(probe.usesWalIndex).toBe(false);
    probe.changed();
    write(other, 'x');
    expect(probe.changed()).toBe(true);
    probe.close();
  });
});
