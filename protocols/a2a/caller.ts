// Who an A2A call speaks for: the bridge authenticates the bearer token and hands the request handler a
// ServerCallContext carrying the token's tenant, identity and roles (never the A2A `tenant` parameter, which a client
// chooses).
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';

/** The caller of an A2A call, as the bridge's token table says. */
export interface A2ACaller {
  tenant: string;
  identity: string;
  roles: string[];
  /** The token's scopes (deciding an approval takes `decide`). */
  scopes: string[];
}

const CALLER_KEY = 'agio.caller';

/** The SDK's user for a caller (the SDK's in-memory stores would scope by its name; Agio's scope by the tenant). */
class AgioUser implements User {
  constructor(private readonly caller: A2ACaller) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return `${this.caller.tenant}/${this.caller.identity}`;
  }
}

/** A call context for an authenticated caller. */
export function callContextFor(caller: A2ACaller, requestedVersion?: string): ServerCallContext {
  return new ServerCallContext({
    user: new AgioUser(caller),
    state: new Map<string, unknown>([[CALLER_KEY, caller]]),
    ...(requestedVersion ? { requestedVersion } : {}),
  });
}

/** The caller a context carries; a context without one (never made by the bridge) finds nothing. */
export function callerOf(context: ServerCallContext): A2ACaller {
  const caller = context.state.get(CALLER_KEY) as A2ACaller | undefined;
  if (!caller) throw new TaskNotFoundError('no caller');
  return caller;
}
