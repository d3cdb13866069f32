// The worker: runs the agents of agents.yaml with this project's tools. Start it next to a Temporal server
// (`npx agio dev`, or any server at TEMPORAL_ADDRESS) and a model (OPENAI_API_KEY, or any OpenAI-compatible
// server at OPENAI_BASE_URL).
import path from 'node:path';
import { createWorker, loadAgentsFile, NativeConnection } from 'agio/worker';
import { tools } from './tools.js';

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  const { worker, close } = await createWorker({
    connection,
    taskQueue: process.env.AGIO_TASK_QUEUE ?? 'agio',
    agents: loadAgentsFile(path.resolve('agents.yaml')).agents,
    tools,
    model: {
      baseURL: process.env.OPENAI_BASE_URL,
      apiKey: process.env.OPENAI_API_KEY ?? '',
      defaultModel: process.env.AGIO_MODEL ?? 'gpt-4.1-mini',
    },
    workspaceRoot: path.resolve('.agio', 'workspaces'),
  });
  // Ctrl-C (or a deploy's SIGTERM) lets running activities finish; runs continue on the next worker.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
  console.log('worker ready');
  await worker.run();
  await close();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
