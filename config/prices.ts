// The worker's model prices: the defaults (common/prices.ts), then AGIO_PRICES_FILE, then AGIO_PRICES. A bad table
// fails the process at start, saying where.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DEFAULT_PRICES, PriceTable } from '../common';
import type { AgioEnv } from './env';

function parsed(source: string, text: string): PriceTable {
  let raw: unknown;
  try {
    raw = parseYaml(text); // YAML is a superset of JSON
  } catch (err) {
    throw new Error(`${source} is not JSON or YAML: ${(err as Error).message}`);
  }
  const table = PriceTable.safeParse(raw);
  if (!table.success)
    throw new Error(
      `${source} is not a price table (model name → { input, cachedInput?, output, reasoning? } in USD per million tokens):\n${z.prettifyError(table.error)}`,
    );
  return table.data;
}

/** The price table from the environment: defaults, then the file, then the inline JSON, later names winning. */
export function pricesFromEnv(env: Pick<AgioEnv, 'AGIO_PRICES_FILE' | 'AGIO_PRICES'>): PriceTable {
  let fromFile: PriceTable = {};
  if (env.AGIO_PRICES_FILE) {
    let text: string;
    try {
      text = readFileSync(env.AGIO_PRICES_FILE, 'utf8');
    } catch (err) {
      throw new Error(`AGIO_PRICES_FILE ${env.AGIO_PRICES_FILE} cannot be read: ${(err as Error).message}`);
    }
    fromFile = parsed(`AGIO_PRICES_FILE ${env.AGIO_PRICES_FILE}`, text);
  }
  const inline = env.AGIO_PRICES ? parsed('AGIO_PRICES', env.AGIO_PRICES) : {};
  return { ...DEFAULT_PRICES, ...fromFile, ...inline };
}
