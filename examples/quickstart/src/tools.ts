// The project's own tools: plain async functions with zod parameters, run by the worker as Temporal activities.
import { z } from 'zod';
import { defineTool } from 'agio/worker';

/** A stand-in for the order database. */
const ORDERS: Record<string, { status: string; eta: string }> = {
  'A-1001': { status: 'shipped', eta: 'Thursday' },
  'A-1002': { status: 'being packed', eta: 'next Monday' },
};

/** Looks an order up by its id. */
export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Looks an order up by its id and answers its status and expected delivery day.',
  parameters: z.object({ orderId: z.string().describe('The order id, e.g. A-1001') }),
  idempotent: true,
  execute: async ({ orderId }) => JSON.stringify(ORDERS[orderId] ?? { error: `no order ${orderId}` }),
});

/** Every tool of this project, for the worker and the tests. */
export const tools = [lookupOrder];
