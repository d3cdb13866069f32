// The price table and the arithmetic of a call's cost (common/prices.ts) and its loading (config/prices.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addUsage, costOf, DEFAULT_PRICES, priceOf, pricedUsage, type Usage } from '../../common';
import { pricesFromEnv } from '../../config';

const usage: Usage = { promptTokens: 1_000_000, completionTokens: 200_000, totalTokens: 1_200_000 };

describe('prices', () => {
  it('prices a model by its own name, a dated version of it, and after a provider prefix', () => {
    expect(priceOf(DEFAULT_PRICES, 'gpt-4o')).toEqual(DEFAULT_PRICES['gpt-4o']);
    expect(priceOf(DEFAULT_PRICES, 'gpt-4o-2024-08-06')).toEqual(DEFAULT_PRICES['gpt-4o']);
    // the longest name wins: gpt-4o-mini-… is not priced as gpt-4o
    expect(priceOf(DEFAULT_PRICES, 'gpt-4o-mini-2024-07-18')).toEqual(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf(DEFAULT_PRICES, 'openai/gpt-4.1')).toEqual(DEFAULT_PRICES['gpt-4.1']);
    expect(priceOf(DEFAULT_PRICES, 'gpt-4oops')).toBeUndefined();
    expect(priceOf(DEFAULT_PRICES, 'my-local-llama')).toBeUndefined();
  });

  it('charges cached prompt tokens and reasoning tokens at their own prices', () => {
    const price = { input: 2, cachedInput: 0.5, output: 8, reasoning: 10 };
    expect(costOf(price, usage)).toBeCloseTo(2 + 1.6);
    const detailed = { ...usage, cachedPromptTokens: 400_000, reasoningTokens: 50_000 };
    expect(costOf(price, detailed)).toBeCloseTo(0.6 * 2 + 0.4 * 0.5 + 0.15 * 8 + 0.05 * 10);
    // without their own prices, cached tokens cost input and reasoning tokens cost output
    expect(costOf({ input: 2, output: 8 }, detailed)).toBeCloseTo(2 + 1.6);
  });

  it('marks a model without a price as unknown instead of free, and sums what is known', () => {
    const unknown = pricedUsage(DEFAULT_PRICES, 'scripted', usage);
    expect(unknown).toEqual({ ...usage, costUnknown: true });
    const known = pricedUsage(DEFAULT_PRICES, 'gpt-4o-mini', usage);
    expect(known.costUsd).toBeCloseTo(0.15 + 0.12);
    const sum = addUsage(known, unknown);
    expect(sum.costUsd).toBeCloseTo(0.27);
    expect(sum.costUnknown).toBe(true);
    expect(sum.totalTokens).toBe(2_400_000);
    // usages without costs sum to one without costs (runs recorded before prices existed replay the same)
    expect(addUsage(usage, usage)).toEqual({
      promptTokens: 2_000_000,
      completionTokens: 400_000,
      totalTokens: 2_400_000,
    });
  });

  it('reads prices from a file and the environment over the defaults, and refuses a bad table saying where', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-prices-'));
    const file = path.join(dir, 'prices.yaml');
    fs.writeFileSync(file, 'gpt-4o:\n  input: 1\n  output: 2\nmine:\n  input: 3\n  output: 4\n');
    const table = pricesFromEnv({ AGIO_PRICES_FILE: file, AGIO_PRICES: '{"mine":{"input":5,"output":6}}' });
    expect(table['gpt-4o']).toEqual({ input: 1, output: 2 });
    expect(table.mine).toEqual({ input: 5, output: 6 });
    expect(table['gpt-4.1']).toEqual(DEFAULT_PRICES['gpt-4.1']);
    expect(() => pricesFromEnv({ AGIO_PRICES: '{"mine":{"input":-1}}' })).toThrow(/AGIO_PRICES is not a price table/);
    expect(() => pricesFromEnv({ AGIO_PRICES_FILE: path.join(dir, 'missing.yaml') })).toThrow(/cannot be read/);
    fs.rmSync(dir, { recursive: true });
  });
});
