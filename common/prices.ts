// Model prices and what a model call cost: the price table's shape, defaults for common models, and the arithmetic.
import { z } from 'zod';
import type { Usage } from './steps';

/** One model's prices in US dollars per million tokens. */
export const ModelPrice = z.object({
  input: z.number().nonnegative(),
  /** Prompt tokens served from the provider's cache (default: `input`). */
  cachedInput: z.number().nonnegative().optional(),
  output: z.number().nonnegative(),
  /** Reasoning tokens (default: `output`, which is how the providers below bill them). */
  reasoning: z.number().nonnegative().optional(),
});
/** One model's prices in US dollars per million tokens. */
export type ModelPrice = z.infer<typeof ModelPrice>;

/**
 * Prices by model name; a name also prices the dated and suffixed versions it begins (`gpt-4o` prices
 * `gpt-4o-2024-08-06`).
 */
export const PriceTable = z.record(z.string().min(1), ModelPrice);
/** Prices by model name. */
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * List prices of common models (USD per million tokens, as their providers published them in 2025–2026). They are a
 * starting point: prices change and contracts differ, so an operator sets their own (config/prices.ts).
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'claude-opus-4': { input: 15, cachedInput: 1.5, output: 75 },
  'claude-sonnet-4': { input: 3, cachedInput: 0.3, output: 15 },
  'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, output: 4 },
  'gemini-2.5-pro': { input: 1.25, cachedInput: 0.31, output: 10 },
  'gemini-2.5-flash': { input: 0.3, cachedInput: 0.075, output: 2.5 },
  'deepseek-chat': { input: 0.27, cachedInput: 0.07, output: 1.1 },
  'deepseek-reasoner': { input: 0.55, cachedInput: 0.14, output: 2.19 },
};

/**
 * The price of `model`: its own entry, else the longest name it begins with followed by `-` (a dated or suffixed
 * version), also after a provider prefix such as `openai/`; undefined when none applies.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  for (const name of [model, model.slice(model.lastIndexOf('/') + 1)]) {
    if (Object.hasOwn(table, name)) return table[name];
    const base = Object.keys(table)
      .filter((key) => name.startsWith(`${key}-`))
      .sort((a, b) => b.length - a.length)[0];
    if (base) return table[base];
  }
  return undefined;
}

/** What `usage` cost at `price`, in US dollars. */
export function costOf(price: ModelPrice, usage: Usage): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.completionTokens);
  const micro =
    (usage.promptTokens - cached) * price.input +
    cached * (price.cachedInput ?? price.input) +
    (usage.completionTokens - reasoning) * price.output +
    reasoning * (price.reasoning ?? price.output);
  return micro / 1_000_000;
}

/** `usage` of one call to `model` with its cost, or marked `costUnknown` when the table has no price for it. */
export function pricedUsage(table: PriceTable, model: string, usage: Usage): Usage {
  const price = priceOf(table, model);
  return price ? { ...usage, costUsd: costOf(price, usage) } : { ...usage, costUnknown: true };
}
