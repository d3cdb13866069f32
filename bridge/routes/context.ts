// What every route module gets: the bridge's options and the parts createBridge builds once.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AgioClient } from '../../client/agio-client';
import type { TokenTable } from '../auth';
import type { OpenStreams } from '../open-streams';
import type { BridgeOptions } from '../options';
import type { StreamHub } from '../stream-hub';
import type { StreamTokens } from '../stream-tokens';

export interface BridgeContext {
  opts: BridgeOptions;
  agio: AgioClient;
  /** token → grant (tenant, identity, scopes). */
  tokens: TokenTable;
  hub: StreamHub;
  /** The SSE responses being streamed, ended first when the bridge closes. */
  openStreams: OpenStreams;
  streamTokens: StreamTokens;
}

/** A module of routes, registered on the bridge's app. */
export type Routes = (app: FastifyInstance, ctx: BridgeContext) => void;

/** Run ids are workflow ids: Agio's own (`run-<uuid>`) or nested ones (`…/tool/<step>-<callId>`). */
export const RunParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:/-]{1,512}$/, 'malformed run id') });
