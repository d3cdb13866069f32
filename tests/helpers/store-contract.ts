// The frame of the store contract suites: each suite runs against every implementation (memory, and MongoDB on the
// harness's FerretDB, and any other a suite adds), in stores of its own; each test works in tenants of its own, so
// the tests of a suite share one set of stores without seeing each other. Also the records those suites write.
import { randomUUID } from 'node:crypto';
import type { Step, Usage } from '../../common';
import { createMemoryStores, type RunInput, type SpanInput, type Stores } from '../../stores';
import { openMongoStores } from './mongo-stores';

/** A store under test and how to let it go. */
export interface OpenedStore<S> {
  store: S;
  close(): Promise<void>;
}

/** One implementation: its name in the suite's title, and how to open a store of it. */
export type StoreBackend<S> = [name: string, open: () => Promise<OpenedStore<S>>];

/** The memory and MongoDB implementations of the store `pick` takes from a bundle (the whole bundle: `(s) => s`). */
export function storeBackends<S>(
  pick: (stores: Stores) => S,
  opts: { collectionPrefix?: string } = {},
): StoreBackend<S>[] {
  return [
    ['memory', async () => ({ store: pick(createMemoryStores()), close: async () => undefined })],
    [
      'mongodb (FerretDB)',
      async () => {
        const mongo = await openMongoStores(opts);
        return { store: pick(mongo.stores), close: () => mongo.close() };
      },
    ],
  ];
}

/**
 * Runs `suite` once per backend, titled `<backend> <title>`. The store it gets stands for that backend's store, which
 * is opened and set up before the suite's first test and closed after its last.
 */
export function describeEachStore<S extends object>(
  title: string,
  backends: StoreBackend<S>[],
  suite: (store: S) => void,
): void {
  describe.each(backends)(`%s ${title}`, (_name, open) => {
    let opened: OpenedStore<S> | undefined;
    beforeAll(async () => {
      opened = await open();
      await (opened.store as { setup?: () => Promise<void> }).setup?.();
    });
    afterAll(() => opened?.close());
    suite(
      new Proxy({} as S, {
        get(_target, prop) {
          if (!opened) throw new Error(`the ${title} is used before its suite opened it`);
          const value = Reflect.get(opened.store, prop) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(opened.store) : value;
        },
      }),
    );
  });
}

/** An id no other test uses: `<prefix>-<8 hex>`. */
export const uniqueId = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Ids that must read as unknown: empty, unknown, an operator object (a query injection), oversized. */
export const BAD_IDS = [
  '',
  'no-such-id',
  { $ne: null } as unknown as string,
  { $gt: '' } as unknown as string,
  'x'.repeat(10_000),
];

export const usage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

/** Step `index` of `runId`: a user message naming both. */
export function step(runId: string, index: number, fields: Partial<Step> = {}): Step {
  return { id: `${runId}:${index}`, runId, index, role: 'user', content: `message ${index} of ${runId}`, ...fields };
}

/** A run record of `tenant`: root run `r` of agent `a` in session `s`, running since 1, with `fields` over that. */
export function runRecord(tenant: string, fields: Partial<RunInput> = {}): RunInput {
  const runId = fields.runId ?? 'r';
  return {
    tenant,
    sessionId: 's',
    runId,
    rootRunId: runId,
    agent: 'a',
    status: 'running',
    startedAt: 1,
    ...fields,
  };
}

/**
 * A span record of `tenant`: span `sp` of trace `tr`, a model call `m` of run `r` running since 1, with `fields` over
 * that.
 */
export function spanRecord(tenant: string, fields: Partial<SpanInput> = {}): SpanInput {
  return {
    tenant,
    traceId: 'tr',
    spanId: 'sp',
    kind: 'model',
    name: 'm',
    runId: 'r',
    startedAt: 1,
    status: 'running',
    ...fields,
  } as SpanInput;
}
