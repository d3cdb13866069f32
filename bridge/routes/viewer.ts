// The run viewer at /ui/: the Preact app built into dist/ui (npm run build:ui), served as static files. Every
// /ui/runs/… path answers with the app, which routes in the browser. The app holds no data: it calls the same API
// with the viewer's bearer token, so every tenant rule applies as it does for any client.
import type { SetHeadersResponse } from '@fastify/static';
import { optionalPackage } from '../../common/optional-package';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../platform/project-root';
import { API_ROUTE_CONFIG, apiRoute, defineRoute } from '../api-route';

/** Nothing but this origin: the app loads no CDN, inlines nothing and talks only to its bridge. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** dist/ui of Agio's package (from the sources or an installed package alike). */
export function builtViewerDir(): string {
  return path.join(projectRoot(), 'dist', 'ui');
}

function secure(res: SetHeadersResponse, file: string): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  // Built assets carry a content hash in their names; the page itself must be fetched anew after an upgrade.
  res.setHeader(
    'cache-control',
    file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
  );
}

const notBuiltAnswer = 'viewer_not_built: build it with npm run build:ui';
/** GET /ui. */
export const ViewerRoot = defineRoute({
  method: 'GET',
  path: '/ui',
  summary: 'The run viewer (redirects to /ui/)',
  tags: ['viewer'],
  auth: 'public',
  responses: { 302: { description: 'To /ui/' }, 503: notBuiltAnswer },
});
/** GET /ui/*: the viewer's page and assets. */
export const ViewerFiles = defineRoute({
  method: 'GET',
  path: '/ui/*',
  summary: "The viewer's page and built assets (it signs in with a bearer token and calls this API)",
  tags: ['viewer'],
  auth: 'public',
  responses: {
    200: { description: 'The page or an asset', contentType: 'text/html' },
    404: { description: 'No such file' },
    503: notBuiltAnswer,
  },
});
/** GET /ui/runs/*: the viewer's page for a run (it routes in the browser). */
export const ViewerRunPage = defineRoute({
  method: 'GET',
  path: '/ui/runs/*',
  summary: "The viewer's page of a run",
  tags: ['viewer'],
  auth: 'public',
  responses: { 200: { description: 'The page', contentType: 'text/html' } },
});
/** GET /ui/approvals: the viewer's approvals inbox (it routes in the browser). */
export const ViewerApprovalsPage = defineRoute({
  method: 'GET',
  path: '/ui/approvals',
  summary: "The viewer's approvals inbox",
  tags: ['viewer'],
  auth: 'public',
  responses: { 200: { description: 'The page', contentType: 'text/html' } },
});
/** GET /ui/compare: the viewer's page comparing two runs (it routes in the browser). */
export const ViewerComparePage = defineRoute({
  method: 'GET',
  path: '/ui/compare',
  summary: "The viewer's page comparing two runs",
  tags: ['viewer'],
  auth: 'public',
  responses: { 200: { description: 'The page', contentType: 'text/html' } },
});
const noTokens = new Map<string, string>();

/** Serves the viewer from `dir`; without a built viewer, /ui answers 503 saying how to build it. */
export function registerViewer(app: FastifyInstance, dir: string): void {
  if (!existsSync(path.join(dir, 'index.html'))) {
    const notBuilt = async (_req: unknown, reply: FastifyReply) =>
      reply.status(503).send({
        error: {
          code: 'viewer_not_built',
          message: `the run viewer is not built (no ${path.join(dir, 'index.html')}): run npm run build:ui`,
        },
      });
    apiRoute(app, noTokens, ViewerRoot, async ({ reply }) => notBuilt(undefined, reply));
    apiRoute(app, noTokens, ViewerFiles, async ({ reply }) => notBuilt(undefined, reply));
    return;
  }
  const { default: fastifyStatic } = optionalPackage<typeof import('@fastify/static')>(
    '@fastify/static',
    'The viewer',
    ['fastify', '@fastify/cors', '@fastify/static'],
  );
  void app.register(async (scope) => {
    // The static plugin's own route (/ui/*) is described by ViewerFiles.
    scope.addHook('onRoute', (route) => {
      if (route.url === '/ui/*') route.config = { ...(route.config as object), [API_ROUTE_CONFIG]: ViewerFiles };
    });
    await scope.register(fastifyStatic, {
      root: dir,
      prefix: '/ui/',
      index: 'index.html',
      cacheControl: false,
      setHeaders: secure,
    });
    apiRoute(scope, noTokens, ViewerRoot, async ({ reply }) => reply.redirect('/ui/'));
    apiRoute(scope, noTokens, ViewerRunPage, async ({ reply }) => reply.sendFile('index.html'));
    apiRoute(scope, noTokens, ViewerApprovalsPage, async ({ reply }) => reply.sendFile('index.html'));
    apiRoute(scope, noTokens, ViewerComparePage, async ({ reply }) => reply.sendFile('index.html'));
  });
}
