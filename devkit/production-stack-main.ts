// `scripts/production-stack`: starts the production shape on this machine (devkit/production-stack.ts) and keeps it
// up until Ctrl-C. The model is OPENAI_BASE_URL / OPENAI_API_KEY / AGIO_MODEL, or the offline demo model without a key.
import { startDemoModel } from './demo-model';
import { startProductionStack } from './production-stack';

async function main(): Promise<void> {
  const t0 = Date.now();
  const demo = process.env.OPENAI_API_KEY ? undefined : await startDemoModel();
  const stack = await startProductionStack({
    model: demo
      ? { baseURL: demo.baseURL }
      : {
          baseURL: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
          apiKey: process.env.OPENAI_API_KEY,
          model: process.env.AGIO_MODEL,
        },
    ...(process.env.AGIO_AGENTS ? { agentsFile: process.env.AGIO_AGENTS } : {}),
    ...(process.env.AGIO_CODEC_KEYS ? { codecKeys: process.env.AGIO_CODEC_KEYS } : {}),
    workers: Number(process.env.AGIO_STACK_WORKERS ?? 2),
    bridges: Number(process.env.AGIO_STACK_BRIDGES ?? 2),
    log: (msg) => console.error(msg),
  });
  const lines = [
    `agio production stack ready in ${Date.now() - t0} ms (${JSON.stringify(stack.timings)}), data in ${stack.dir}`,
    `  PostgreSQL   ${stack.postgres.url('postgres')}`,
    `  Temporal     ${stack.temporal.address} (namespace ${stack.temporal.namespace})`,
    `  FerretDB     ${stack.mongoUri}`,
    `  NATS         ${stack.natsUrl}`,
    ...stack.workers.map(
      (w) =>
        `  ${w.name}     pid ${w.pid}, AGIO_DATA_DIR=${w.env.AGIO_DATA_DIR}, metrics http://127.0.0.1:${w.env.AGIO_METRICS_PORT}/metrics`,
    ),
    ...stack.bridges.map(
      (b) => `  ${b.name}     ${b.url} (pid ${b.pid}, token ${b.env.AGIO_TOKENS}, metrics ${b.url}/metrics)`,
    ),
    demo ? '  model        offline demo model (set OPENAI_API_KEY for a real one)' : '',
    'Ctrl-C stops everything.',
  ];
  console.log(lines.filter(Boolean).join('\n'));
  const stop = () => {
    console.log('stopping…');
    void stack
      .stop()
      .then(() => demo?.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
