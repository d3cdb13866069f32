// Starts the backend service on PORT (default 3000) with a client of the Temporal server at TEMPORAL_ADDRESS.
import { AgioClient, Client, Connection } from 'agio/client';
import { createService } from './service.js';

async function main(): Promise<void> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  const agio = new AgioClient(new Client({ connection }), { taskQueue: process.env.AGIO_TASK_QUEUE ?? 'agio' });
  const server = createService(agio).listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
    const address = server.address();
    console.log(`service listening on http://127.0.0.1:${typeof address === 'object' ? address?.port : address}`);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
