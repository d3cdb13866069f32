// How every Agio process reaches Temporal (worker, bridge, CLI, `agio serve`): one target built from the environment,
// so TLS and the API key apply wherever TEMPORAL_ADDRESS points, and one way to register the search attributes runs
// are started with.
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { AGIO_SEARCH_ATTRIBUTES } from '../common/search-attributes';
import type { AgioEnv } from './env';

/** Where a process reaches Temporal, and how. */
export interface TemporalTarget {
  address: string;
  namespace: string;
  /** TLS with the system's trusted roots (a cluster behind TLS, Temporal Cloud). */
  tls: boolean;
  /** Temporal Cloud API key; sent only over TLS. */
  apiKey?: string;
}

/** A Temporal server on this machine's default port: where a process looks when TEMPORAL_ADDRESS is unset. */
export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

/** The variables that say where Temporal is. */
type TemporalEnv = Pick<AgioEnv, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TLS' | 'TEMPORAL_API_KEY'>;

/** temporal.api.enums.v1.IndexedValueType of each search attribute type Agio uses. */
const INDEXED_VALUE_TYPE: Partial<Record<SearchAttributeType, number>> = {
  [SearchAttributeType.KEYWORD]: 2,
  [SearchAttributeType.DATETIME]: 6,
  [SearchAttributeType.KEYWORD_LIST]: 7,
};
/** The Temporal CLI's name of each search attribute type Agio uses. */
const CLI_TYPE: Partial<Record<SearchAttributeType, string>> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};
/** The search attributes Agio uses. */
const NAMES = AGIO_SEARCH_ATTRIBUTES.map((key) => key.name);
const TYPE_OF = new Map(AGIO_SEARCH_ATTRIBUTES.map((key) => [key.name, key.type]));

/** Agio's search attributes named in `names` as `addSearchAttributes` takes them (name → indexed value type). */
export function searchAttributeTypes(names: readonly string[] = NAMES): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, INDEXED_VALUE_TYPE[TYPE_OF.get(name)!] ?? 2]));
}

/** The server the environment names; an API key turns TLS on, as Temporal Cloud accepts keys over TLS only. */
export function temporalTarget(env: TemporalEnv): TemporalTarget {
  return {
    address: env.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE,
    tls: env.TEMPORAL_TLS === 'true' || Boolean(env.TEMPORAL_API_KEY),
    ...(env.TEMPORAL_API_KEY ? { apiKey: env.TEMPORAL_API_KEY } : {}),
  };
}

/** A dev server this process started on loopback: plain, whatever TLS or key the environment gives for a remote one. */
export function localTarget(address: string, namespace: string): TemporalTarget {
  return { address, namespace, tls: false };
}

function connectionOptions({ address, tls, apiKey }: TemporalTarget) {
  return { address, ...(tls ? { tls: true } : {}), ...(apiKey ? { apiKey } : {}) };
}

/** The worker's connection. */
export function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions(target));
}

/** A client connection (bridge, CLI, `agio serve`). */
export function connectClient(target: TemporalTarget): Promise<Connection> {
  return Connection.connect(connectionOptions(target));
}

/** The search attributes a namespace lacks could not be registered: the error names the commands that register them. */
export class SearchAttributesMissingError extends Error {
  override name = 'SearchAttributesMissingError';
}

/** The commands that register `names` as keywords in `namespace`: the Temporal CLI's, and Temporal Cloud's. */
export function searchAttributeCommands(namespace: string, names: readonly string[] = NAMES): string {
  const type = (name: string) => CLI_TYPE[TYPE_OF.get(name)!] ?? 'Keyword';
  const cli = names.map((name) => `--name ${name} --type ${type(name)}`).join(' ');
  const cloud = names.map((name) => `--sa "${name}=${type(name)}"`).join(' ');
  return (
    `temporal operator search-attribute create --namespace ${namespace} ${cli}` +
    ` (Temporal Cloud: tcld namespace search-attributes add --namespace ${namespace} ${cloud})`
  );
}

/**
 * Registers the search attributes `namespace` lacks and returns their names. Throws
 * {@link SearchAttributesMissingError}, naming the command that would register them, when some are missing and the
 * server refuses to add them; when it refuses even to list them (a Temporal Cloud API key without admin rights),
 * returns undefined: nothing is known either way.
 */
export async function registerSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
  who: string,
): Promise<string[] | undefined> {
  const { operatorService } = connection;
  let missing: string[];
  try {
    const { customAttributes } = await operatorService.listSearchAttributes({ namespace });
    missing = NAMES.filter((name) => !(name in (customAttributes ?? {})));
  } catch (err) {
    console.warn(
      `${who}: could not check the search attributes of namespace "${namespace}" (${(err as Error).message}); ` +
        `runs start only if ${NAMES.join(', ')} are registered: ${searchAttributeCommands(namespace)}`,
    );
    return undefined;
  }
  if (!missing.length) return missing;
  try {
    await operatorService.addSearchAttributes({ namespace, searchAttributes: searchAttributeTypes(missing) });
  } catch (err) {
    throw new SearchAttributesMissingError(
      `${who}: namespace "${namespace}" has no search attributes ${missing.join(', ')}, which runs are started ` +
        `with or keep, and the server refused to register them (${(err as Error).message}). Register them once with: ` +
        searchAttributeCommands(namespace, missing),
    );
  }
  console.log(`${who}: registered search attributes ${missing.join(', ')} in namespace "${namespace}"`);
  return missing;
}

/**
 * Registers the search attributes a namespace lacks, for a process that starts runs: without them starting a run
 * fails and `GET /runs` cannot list. A dev server Agio starts has them already. Temporal Cloud refuses this call to API
 * keys without admin rights (register them there with `tcld` or the UI), so a failure is a warning, reported with
 * `who` as the prefix. Returns the names added.
 */
export async function ensureSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
  who: string,
): Promise<string[]> {
  try {
    return (await registerSearchAttributes(connection, namespace, who)) ?? [];
  } catch (err) {
    console.warn((err as Error).message);
    return [];
  }
}
