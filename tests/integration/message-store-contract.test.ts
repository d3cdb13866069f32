// The message store's contract, run against memory and MongoDB (the harness's FerretDB): runs' conversations by
// position, written idempotently, overwritten only by a newer version, read back exactly (nulls included), scoped by
// tenant and run.

import type { ChatMessage } from '../../common';
import { describeEachStore, storeBackends, uniqueId as id } from '../helpers/store-contract';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const at = (index: number, message: ChatMessage) => ({ index, message });

const backends = storeBackends((stores) => stores.messages);

describeEachStore('message store', backends, (store) => {
  it('reads back the messages written, by position, exactly as written', async () => {
    const [tenant, run] = [id('t'), id('run')];
    const call: ChatMessage = {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c1', name: 'echo', arguments: '{"text":"ünï"}' }],
    };
    await store.put(tenant, run, 1, [
      at(1, call),
      at(0, user('hi')),
      at(2, { role: 'tool', content: 'x', toolCallId: 'c1' }),
    ]);
    const read = await store.read(tenant, run, 3);
    expect(read.map((m) => m.index)).toEqual([0, 1, 2]);
    expect(read.map((m) => m.version)).toEqual([1, 1, 1]);
    expect(read[1].message).toEqual(call);
    expect(read[1].message.content).toBeNull();
    expect(await store.read(tenant, run, 2)).toHaveLength(2);
    expect(await store.read(tenant, run, 0)).toEqual([]);
  });

  it('stores a repeated write once and keeps the newest version of a position', async () => {
    const [tenant, run] = [id('t'), id('run')];
    await store.put(tenant, run, 1, [at(0, user('a')), at(1, user('b'))]);
    await store.put(tenant, run, 1, [at(0, user('a')), at(1, user('b'))]);
    await store.put(tenant, run, 3, [at(1, user('b3')), at(2, user('c3'))]);
    // A lost attempt of an older call finishing late changes nothing it wrote before.
    await store.put(tenant, run, 2, [at(1, user('b2')), at(2, user('c2')), at(3, user('d2'))]);
    const read = await store.read(tenant, run, 10);
    expect(read.map((m) => [m.index, m.version, m.message.content])).toEqual([
      [0, 1, 'a'],
      [1, 3, 'b3'],
      [2, 3, 'c3'],
      [3, 2, 'd2'],
    ]);
  });

  it('lets concurrent writers of one new position end with the newer version', async () => {
    const [tenant, run] = [id('t'), id('run')];
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.put(tenant, run, i + 1, [at(0, user(`v${i + 1}`))])));
    expect((await store.read(tenant, run, 1)).map((m) => [m.version, m.message.content])).toEqual([[8, 'v8']]);
  });

  it('keeps runs and tenants apart, and reads bad ids as nothing', async () => {
    const [tenant, other, run] = [id('t'), id('t'), id('run')];
    await store.put(tenant, run, 1, [at(0, user('mine'))]);
    expect(await store.read(other, run, 1)).toEqual([]);
    expect(await store.read(tenant, id('run'), 1)).toEqual([]);
    const bad = { $ne: null } as unknown as string;
    expect(await store.read(bad, bad, 1)).toEqual([]);
    await expect(store.put(tenant, '', 1, [at(0, user('x'))])).rejects.toThrow();
  });
});
