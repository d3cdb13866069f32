// Registers Agio's search attributes on a Temporal namespace that lacks them (a self-hosted cluster; the
// embedded dev server registers them when it starts). Without them starting a run fails and `GET /runs`
// cannot list. Temporal Cloud refuses this call for API keys without admin rights: register them there with
// `tcld` or the UI instead.
import type { Connection } from '@temporalio/client';
import { RunSearchAttributes } from '../common/search-attributes';

/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD */
const KEYWORD = 2;

/** Adds the missing ones; returns their names (empty when all were there). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.values(RunSearchAttributes).map((key) => key.name).filter((name) => !(name in (customAttributes ?? {})));
  if (missing.length) {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD])) });
  }
  return missing;
}
