// The workspace store's contract, run against memory and MongoDB (the harness's FerretDB): manifests with a
// generation, blobs, per-file merging of concurrent commits, the quota, tenant scoping.
import { randomBytes } from 'node:crypto';
import { WorkspaceQuotaExceededError, type WorkspaceChange } from '../../stores';
import { describeEachStore, storeBackends, uniqueId as id } from '../helpers/store-contract';

const text = (s: string) => Buffer.from(s, 'utf8');

const backends = storeBackends((stores) => stores.workspaces);

describeEachStore('workspace store', backends, (store) => {
  /** Uploads `content` and returns the change that writes it at `path`. */
  async function write(tenant: string, ws: string, path: string, content: Buffer): Promise<WorkspaceChange> {
    const blob = await store.putBlob(tenant, ws, content);
    return { path, size: content.length, hash: `h-${content.toString('hex').slice(0, 16)}`, blob };
  }

  it('reads a workspace it never saw as generation 0 with no files, and bad ids the same way', async () => {
    const tenant = id('t');
    expect(await store.generation(tenant, 'runs/none')).toBe(0);
    expect(await store.manifest(tenant, 'runs/none')).toEqual({ generation: 0, files: [], bytes: 0 });
    const bad = { $ne: null } as unknown as string;
    expect(await store.generation(bad, bad)).toBe(0);
    expect(await store.getBlob(tenant, 'runs/none', bad)).toBeUndefined();
  });

  it('commits files, bumps the generation, and serves their contents', async () => {
    const tenant = id('t');
    const ws = id('runs/run');
    const a = await write(tenant, ws, 'b/a.txt', text('alpha'));
    const b = await write(tenant, ws, 'a.txt', text(''));
    const manifest = await store.commit(tenant, ws, [a, { ...b, executable: true }]);
    expect(manifest.generation).toBe(1);
    expect(manifest.bytes).toBe(5);
    expect(manifest.files.map((f) => f.path)).toEqual(['a.txt', 'b/a.txt']);
    expect(manifest.files[0].executable).toBe(true);
    expect(await store.generation(tenant, ws)).toBe(1);
    expect(await store.manifest(tenant, ws)).toEqual(manifest);
    expect(Buffer.from((await store.getBlob(tenant, ws, (a as { blob: string }).blob))!).toString()).toBe('alpha');
    expect((await store.getBlob(tenant, ws, (b as { blob: string }).blob))!.byteLength).toBe(0);
    const both = await store.getBlobs(tenant, ws, [(a as { blob: string }).blob, (b as { blob: string }).blob, 'gone']);
    expect([...both.values()].map((c) => Buffer.from(c).toString())).toEqual(['alpha', '']);
  });

  it('keeps the generation when a commit changes nothing, and frees the blobs of replaced and deleted files', async () => {
    const tenant = id('t');
    const ws = id('ws');
    const first = (await write(tenant, ws, 'f', text('one'))) as { blob: string };
    const gone = (await write(tenant, ws, 'g', text('gone'))) as { blob: string };
    await store.commit(tenant, ws, [first as WorkspaceChange, gone as WorkspaceChange]);
    expect((await store.commit(tenant, ws, [first as WorkspaceChange])).generation).toBe(1);
    expect((await store.commit(tenant, ws, [{ path: 'nope', deleted: true }])).generation).toBe(1);
    const second = await write(tenant, ws, 'f', text('two!'));
    const after = await store.commit(tenant, ws, [second, { path: 'g', deleted: true }]);
    expect(after).toMatchObject({ generation: 2, bytes: 4 });
    expect(after.files.map((f) => f.path)).toEqual(['f']);
    expect(await store.getBlob(tenant, ws, first.blob)).toBeUndefined();
    expect(await store.getBlob(tenant, ws, gone.blob)).toBeUndefined();
  });

  it('round-trips a file larger than one chunk byte for byte', async () => {
    const tenant = id('t');
    const ws = id('ws');
    const content = randomBytes(2.5 * 1024 * 1024);
    const blob = await store.putBlob(tenant, ws, content);
    expect(Buffer.compare(Buffer.from((await store.getBlob(tenant, ws, blob))!), content)).toBe(0);
  });

  it('merges concurrent commits of different files, each one generation', async () => {
    const tenant = id('t');
    const ws = id('ws');
    const names = Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    const changes = await Promise.all(names.map((name) => write(tenant, ws, name, text(`file ${name}`))));
    await Promise.all(changes.map((c) => store.commit(tenant, ws, [c])));
    const manifest = await store.manifest(tenant, ws);
    expect(manifest.files.map((f) => f.path)).toEqual(names);
    expect(manifest.generation).toBe(names.length);
  });

  it('refuses a commit past the quota, keeps the workspace as it was and drops the refused blobs', async () => {
    const tenant = id('t');
    const ws = id('ws');
    const quota = { maxBytes: 10, maxFiles: 2 };
    await store.commit(tenant, ws, [await write(tenant, ws, 'a', text('12345'))], quota);
    const big = (await write(tenant, ws, 'b', text('1234567'))) as { blob: string };
    const refused = store.commit(tenant, ws, [big as WorkspaceChange], quota);
    await expect(refused).rejects.toBeInstanceOf(WorkspaceQuotaExceededError);
    await expect(refused).rejects.toThrow(
      /^workspace quota exceeded: .* 12 B in 2 files, over its limit of 10 B and 2 files/,
    );
    expect(await store.getBlob(tenant, ws, big.blob)).toBeUndefined();
    const many = [await write(tenant, ws, 'c', text('')), await write(tenant, ws, 'd', text(''))];
    await expect(store.commit(tenant, ws, many, quota)).rejects.toThrow(/in 3 files/);
    expect(await store.manifest(tenant, ws)).toMatchObject({ generation: 1, bytes: 5 });
    // A workspace over a quota lowered since may still shrink.
    const shrink = await store.commit(tenant, ws, [await write(tenant, ws, 'a', text('123'))], {
      maxBytes: 1,
      maxFiles: 1,
    });
    expect(shrink).toMatchObject({ generation: 2, bytes: 3 });
  });

  it("never shows a tenant another tenant's workspace", async () => {
    const tenant = id('t');
    const ws = id('ws');
    const change = (await write(tenant, ws, 'secret', text('s'))) as { blob: string };
    await store.commit(tenant, ws, [change as WorkspaceChange]);
    const other = id('t');
    expect(await store.generation(other, ws)).toBe(0);
    expect((await store.manifest(other, ws)).files).toEqual([]);
    expect(await store.getBlob(other, ws, change.blob)).toBeUndefined();
  });

  it('removes a workspace with its blobs', async () => {
    const tenant = id('t');
    const ws = id('ws');
    const change = (await write(tenant, ws, 'f', text('x'))) as { blob: string };
    await store.commit(tenant, ws, [change as WorkspaceChange]);
    await store.remove(tenant, ws);
    expect(await store.generation(tenant, ws)).toBe(0);
    expect(await store.getBlob(tenant, ws, change.blob)).toBeUndefined();
  });
});
