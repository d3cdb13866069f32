// GET /openapi.json: this bridge's HTTP API as an OpenAPI 3.1 document, built once from the routes it registered
// (bridge/openapi.ts). Public, like /healthz: it says what the API accepts, nothing about runs, tenants or tokens.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { projectRoot } from '../../platform/project-root';
import { apiRoute, defineRoute } from '../api-route';
import { openApiDocument, type RouteCatalog } from '../openapi';
import type { BridgeContext } from './context';

/** GET /openapi.json. */
export const GetOpenApi = defineRoute({
  method: 'GET',
  path: '/openapi.json',
  summary: 'This API as an OpenAPI 3.1 document',
  description: 'Generated from the schemas the routes validate with; no token needed.',
  tags: ['operations'],
  auth: 'public',
  responses: { 200: z.object({ openapi: z.string(), info: z.object({ version: z.string() }).loose() }).loose() },
});

/** Agio's version, the document's info.version. */
export const agioVersion = (): string =>
  (JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/** Registers GET /openapi.json over the routes `catalog` saw. */
export function openApiRoutes(app: Parameters<typeof apiRoute>[0], ctx: BridgeContext, catalog: RouteCatalog): void {
  let document: Record<string, unknown> | undefined;
  apiRoute(app, ctx.tokens, GetOpenApi, async () => (document ??= openApiDocument(catalog.described(), agioVersion())));
}
