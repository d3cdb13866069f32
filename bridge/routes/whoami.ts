// GET /whoami: the tenant a bearer token opens, so that the viewer can name it before it signs in with a token from a
// link (someone else's token would otherwise sign a person into their tenant without a word), and what the token may
// do there: its identity (recorded as `by`) and scopes.
import { apiRoute, defineRoute } from '../api-route';
import { WhoamiAnswer } from '../api-schemas';
import type { Routes } from './context';

/** GET /whoami. */
export const GetWhoami = defineRoute({
  method: 'GET',
  path: '/whoami',
  summary: "The bearer token's tenant, identity and scopes",
  tags: ['operations'],
  auth: 'token',
  responses: { 200: WhoamiAnswer },
});

export const whoamiRoutes: Routes = (app, ctx) => {
  apiRoute(app, ctx.tokens, GetWhoami, async ({ caller: { tenant, identity, scopes, roles } }) => ({
    tenant,
    identity,
    scopes: [...scopes],
    ...(roles?.size ? { roles: [...roles] } : {}),
  }));
};
