// GET /whoami: the tenant a bearer token opens, so that the viewer can name it before it signs in with a token from a
// link (someone else's token would otherwise sign a person into their tenant without a word), and what the token may
// do there: its identity (recorded as `by`) and scopes.
import { callerOf } from '../auth';
import type { Routes } from './context';

export const whoamiRoutes: Routes = (app, ctx) => {
  app.get('/whoami', async (req) => {
    const { tenant, identity, scopes } = callerOf(req, ctx.tokens);
    return { tenant, identity, scopes: [...scopes] };
  });
};
