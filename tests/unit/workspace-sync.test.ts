// WorkspaceSync on real directories and a memory store: two workers' copies of one workspace kept in step (writes,
// deletions, modes, agent-tool subfolders), a copy already current costs one generation lookup, an unfinished tool's
// changes are put right, and concurrent writers of different files both keep theirs.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceSync, workspaceTree } from '../../activities/workspace/workspace-sync';
import { DEFAULT_WORKSPACE_QUOTA, MemoryWorkspaceStore, type WorkspaceStore } from '../../stores';

const WS = 'runs/run-1';
let dirs: string[] = [];
let store: MemoryWorkspaceStore;
let calls: string[];

/** The store, recording which of its methods were called. */
function counted(inner: WorkspaceStore): WorkspaceStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** A worker's side: its own workspace root over the shared store. */
async function worker(root?: string) {
  const dir = root ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'agio-sync-')));
  if (!root) dirs.push(dir);
  const sync = new WorkspaceSync(counted(store), dir, DEFAULT_WORKSPACE_QUOTA);
  const file = (rel: string, ws = WS) => path.join(dir, ws, rel);
  return { dir, sync, file, read: (rel: string) => fs.readFile(file(rel), 'utf8').catch(() => undefined) };
}

/** Runs `change` as a writing tool on `w`. */
async function write(w: Awaited<ReturnType<typeof worker>>, change: () => Promise<void>, ws = WS) {
  const session = await w.sync.begin('t', ws, true);
  await change();
  await session.finish();
}

beforeEach(() => {
  store = new MemoryWorkspaceStore();
  calls = [];
});
afterEach(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  dirs = [];
});

describe('WorkspaceSync', () => {
  it("brings one worker's writes, deletions and executable bits to another worker's copy", async () => {
    const a = await worker();
    const b = await worker();
    await write(a, async () => {
      await fs.mkdir(a.file('src/lib'), { recursive: true });
      await fs.writeFile(a.file('src/lib/x.txt'), 'x1');
      await fs.writeFile(a.file('run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
      await fs.writeFile(a.file('gone.txt'), 'soon gone');
    });
    await b.sync.begin('t', WS, false);
    expect(await b.read('src/lib/x.txt')).toBe('x1');
    expect((await fs.stat(b.file('run.sh'))).mode & 0o111).not.toBe(0);
    await write(b, async () => {
      await fs.rm(b.file('gone.txt'));
      await fs.writeFile(b.file('src/lib/x.txt'), 'x2, longer');
    });
    await a.sync.begin('t', WS, false);
    expect(await a.read('gone.txt')).toBeUndefined();
    expect(await a.read('src/lib/x.txt')).toBe('x2, longer');
    expect((await store.manifest('t', WS)).generation).toBe(2);
  });

  it("keeps an agent tool's subfolder in its root run's workspace", async () => {
    expect(workspaceTree('runs/r/subagents/scribe/subagents/helper')).toBe('runs/r');
    const a = await worker();
    const b = await worker();
    const child = `${WS}/subagents/scribe`;
    await write(
      a,
      async () => {
        await fs.mkdir(a.file('', child), { recursive: true });
        await fs.writeFile(a.file('note.md', child), 'from the child');
      },
      child,
    );
    await b.sync.begin('t', WS, false);
    expect(await b.read('subagents/scribe/note.md')).toBe('from the child');
  });

  it('costs one generation lookup when the copy is current, also after the worker restarts', async () => {
    const a = await worker();
    await write(a, () => fs.writeFile(a.file('f.txt'), 'content'));
    calls = [];
    await a.sync.begin('t', WS, false);
    expect(calls).toEqual(['generation']);
    const restarted = await worker(a.dir);
    calls = [];
    await restarted.sync.begin('t', WS, false);
    expect(calls).toEqual(['generation']);
    // A writing tool that changes nothing commits nothing.
    calls = [];
    await write(restarted, async () => undefined);
    expect(calls).toEqual(['generation']);
  });

  it('puts right a copy left by a writing tool that did not finish (the next sync drops what it changed)', async () => {
    const a = await worker();
    await write(a, () => fs.writeFile(a.file('kept.txt'), 'committed'));
    const session = await a.sync.begin('t', WS, true);
    await fs.writeFile(a.file('kept.txt'), 'half-written');
    await fs.writeFile(a.file('stray.txt'), 'never committed');
    session.abandon();
    // As after a crash: a new process finds the copy marked as being written.
    const restarted = await worker(a.dir);
    await restarted.sync.begin('t', WS, false);
    expect(await a.read('kept.txt')).toBe('committed');
    expect(await a.read('stray.txt')).toBeUndefined();
  });

  it('keeps both files when writers on two workers commit at the same time', async () => {
    const a = await worker();
    const b = await worker();
    const sa = await a.sync.begin('t', WS, true);
    const sb = await b.sync.begin('t', WS, true);
    await fs.writeFile(a.file('from-a.txt'), 'A');
    await fs.writeFile(b.file('from-b.txt'), 'B');
    await Promise.all([sa.finish(), sb.finish()]);
    expect((await store.manifest('t', WS)).files.map((f) => f.path)).toEqual(['from-a.txt', 'from-b.txt']);
    await a.sync.begin('t', WS, false);
    await b.sync.begin('t', WS, false);
    expect([await a.read('from-b.txt'), await b.read('from-a.txt')]).toEqual(['B', 'A']);
  });

  it('commits files put in a new workspace by hand before the first tool that writes', async () => {
    const a = await worker();
    await fs.mkdir(a.file(''), { recursive: true });
    await fs.writeFile(a.file('seed.txt'), 'seeded');
    await write(a, () => fs.writeFile(a.file('new.txt'), 'new'));
    expect((await store.manifest('t', WS)).files.map((f) => f.path)).toEqual(['new.txt', 'seed.txt']);
  });

  it('never writes through a symlink that leads out of the copy', async () => {
    const a = await worker();
    const b = await worker();
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-outside-'));
    dirs.push(outside);
    await fs.mkdir(b.file(''), { recursive: true });
    await fs.symlink(outside, b.file('link'));
    await write(a, async () => {
      await fs.mkdir(a.file('link'), { recursive: true });
      await fs.writeFile(a.file('link/x.txt'), 'x');
    });
    await b.sync.begin('t', WS, false);
    expect(await fs.readdir(outside)).toEqual([]);
  });
});
