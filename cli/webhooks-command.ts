// `agio webhooks create|list|get|delete|deliveries|delivery|resend`: a tenant's webhooks and their delivery log
// through the bridge.
import { parseArgs } from 'node:util';
import { bridgeFromEnv, printJson } from './commands';

/** The usage lines of `agio webhooks`. */
export const WEBHOOKS_USAGE = `  webhooks create <url> [--event T]… [--agent A] [--root RUNID] [--nested] [--description TEXT]
                                   send the tenant's run.completed, run.failed, run.cancelled, run.paused,
                                   approval.requested, approval.expired (or the --event types) to a URL,
                                   signed per Standard Webhooks; prints the secret once (admin token)
  webhooks list [--root RUNID] | get <id> | delete <id>
  webhooks deliveries <id> [--limit N]
                                   a webhook's deliveries, newest first, each attempt's time, status or
                                   error and duration
  webhooks delivery <deliveryId> | resend <deliveryId>
                                   one delivery; send its event again (same webhook-id, a new delivery)
`;

/** Runs `agio webhooks …`; returns the exit code. */
export async function webhooksCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      event: { type: 'string', multiple: true },
      agent: { type: 'string' },
      root: { type: 'string' },
      nested: { type: 'boolean' },
      description: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  const [action, arg] = positionals;
  const need = (what: string) => {
    if (!arg) throw new Error(`usage: agio webhooks ${action} ${what}`);
    return encodeURIComponent(arg);
  };
  const bridge = bridgeFromEnv();
  switch (action) {
    case 'create':
      need('<url> [--event T]… [--agent A] [--root RUNID] [--nested] [--description TEXT]');
      return printJson(
        bridge.request('POST', '/webhooks', {
          url: arg,
          ...(values.event ? { events: values.event } : {}),
          ...(values.agent ? { agent: values.agent } : {}),
          ...(values.root ? { rootRunId: values.root } : {}),
          ...(values.nested ? { includeNested: true } : {}),
          ...(values.description ? { description: values.description } : {}),
        }),
      );
    case 'list':
      return printJson(
        bridge.request('GET', `/webhooks${values.root ? `?rootRunId=${encodeURIComponent(values.root)}` : ''}`),
      );
    case 'get':
      return printJson(bridge.request('GET', `/webhooks/${need('<id>')}`));
    case 'delete':
      await bridge.request('DELETE', `/webhooks/${need('<id>')}`);
      return printJson(Promise.resolve({ id: arg, deleted: true }));
    case 'deliveries': {
      const limit = values.limit ? `?limit=${encodeURIComponent(values.limit)}` : '';
      return printJson(bridge.request('GET', `/webhooks/${need('<id> [--limit N]')}/deliveries${limit}`));
    }
    case 'delivery':
      return printJson(bridge.request('GET', `/webhooks/deliveries/${need('<deliveryId>')}`));
    case 'resend':
      return printJson(bridge.request('POST', `/webhooks/deliveries/${need('<deliveryId>')}/resend`));
    default:
      throw new Error(`usage: agio webhooks create|list|get|delete|deliveries|delivery|resend …\n\n${WEBHOOKS_USAGE}`);
  }
}
