// `agio schedule create|list|get|pause|unpause|trigger|backfill|delete`: a tenant's schedules through the bridge.
import { parseArgs } from 'node:util';
import { bridgeFromEnv, printJson } from './commands';

/** The usage lines of `agio schedule`. */
export const SCHEDULE_USAGE = `  schedule create <id> <agent> "<input>" (--cron "EXPR" | --every 15m) [--timezone TZ] [--overlap P]
           [--jitter D] [--catchup D] [--paused] [--trigger-now]
                                   start the agent on a cron or interval schedule (P: skip, buffer_one,
                                   buffer_all, cancel_other, terminate_other, allow_all)
  schedule list | get <id>         your schedules; one with its next and latest runs
  schedule pause|unpause <id> [--note TEXT]
  schedule trigger <id> [--overlap P]
                                   start one run now
  schedule backfill <id> <start> <end> [--overlap P]
                                   start the runs that were due between two ISO times
  schedule delete <id>             (runs it started go on; list them with: agio runs --schedule <id>)
`;

/** Runs `agio schedule …`; returns the exit code. */
export async function scheduleCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      cron: { type: 'string', multiple: true },
      every: { type: 'string' },
      timezone: { type: 'string' },
      overlap: { type: 'string' },
      jitter: { type: 'string' },
      catchup: { type: 'string' },
      note: { type: 'string' },
      paused: { type: 'boolean' },
      'trigger-now': { type: 'boolean' },
    },
  });
  const [action, id, ...rest] = positionals;
  const need = (n: number, what: string) => {
    if (rest.length < n || (action !== 'list' && !id)) throw new Error(`usage: agio schedule ${action} ${what}`);
  };
  const bridge = bridgeFromEnv();
  const at = (suffix = '') => `/schedules/${encodeURIComponent(id ?? '')}${suffix}`;
  const overlap = values.overlap ? { overlap: values.overlap } : {};
  switch (action) {
    case 'create':
      need(2, '<id> <agent> "<input>" (--cron "EXPR" | --every 15m)');
      return printJson(
        bridge.request('POST', '/schedules', {
          id,
          agent: rest[0],
          input: rest.slice(1).join(' '),
          ...(values.cron ? { cron: values.cron } : {}),
          ...(values.every ? { every: values.every } : {}),
          ...(values.timezone ? { timezone: values.timezone } : {}),
          ...(values.jitter ? { jitter: values.jitter } : {}),
          ...(values.catchup ? { catchupWindow: values.catchup } : {}),
          ...(values.note ? { note: values.note } : {}),
          ...(values.paused ? { paused: true } : {}),
          ...(values['trigger-now'] ? { triggerNow: true } : {}),
          ...overlap,
        }),
      );
    case 'list':
      return printJson(bridge.request('GET', '/schedules'));
    case 'get':
      need(0, '<id>');
      return printJson(bridge.request('GET', at()));
    case 'pause':
    case 'unpause':
      need(0, '<id> [--note TEXT]');
      return printJson(bridge.request('POST', at(`/${action}`), values.note ? { note: values.note } : {}));
    case 'trigger':
      need(0, '<id> [--overlap P]');
      return printJson(bridge.request('POST', at('/trigger'), overlap));
    case 'backfill':
      need(2, '<id> <start> <end> [--overlap P]');
      return printJson(bridge.request('POST', at('/backfill'), { start: rest[0], end: rest[1], ...overlap }));
    case 'delete':
      need(0, '<id>');
      return printJson(bridge.request('DELETE', at()));
    default:
      process.stderr.write(`agio: unknown schedule command "${action ?? ''}"\n\n${SCHEDULE_USAGE}`);
      return 2;
  }
}
