// A remote A2A agent for tests, built with the SDK's own server (DefaultRequestHandler, InMemoryTaskStore, the express
// JSON-RPC and card handlers) on loopback: it answers a message at once, holds its task until released, or stops to ask
// for input, and records every message it was sent.
// @ts-expect-error -- express is installed (the SDK's server adapters use it) without its type declarations
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { AGENT_CARD_PATH, TaskState, type AgentCard, type Message } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';

/** How the remote agent handles the next messages. */
export type RemoteMode = 'answer' | 'hold' | 'ask';

const text = (value: string) => ({
  content: { $case: 'text' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** A listening remote agent. */
export class RemoteAgent {
  mode: RemoteMode = 'answer';
  /** The messages it was sent, in order. */
  readonly received: Message[] = [];
  /** How many JSON-RPC requests it was sent (messages, and the GetTask polls of a caller following a task). */
  rpcRequests = 0;
  private release?: () => void;
  private held = new Promise<void>((resolve) => (this.release = resolve));

  private constructor(private readonly server: Server) {}

  /** Starts one on 127.0.0.1. */
  static async start(): Promise<RemoteAgent> {
    const app = express();
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const remote = new RemoteAgent(server);
    const handler = new DefaultRequestHandler(remote.card(), new InMemoryTaskStore(), remote.executor());
    app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: async () => remote.card() }));
    app.use('/rpc', (_req: unknown, _res: unknown, next: () => void) => {
      remote.rpcRequests++;
      next();
    });
    app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    return remote;
  }

  get cardUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/${AGENT_CARD_PATH}`;
  }

  /** Lets held tasks finish. */
  releaseHeld(): void {
    this.release?.();
  }

  close(): Promise<void> {
    this.releaseHeld();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private card(): AgentCard {
    const url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/rpc`;
    return {
      name: 'weather',
      description: 'Says the weather.',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
      provider: undefined,
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: false, extensions: [] },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      signatures: [],
    };
  }

  private executor(): AgentExecutor {
    return {
      execute: async (request, bus) => {
        const { taskId, contextId } = request;
        this.received.push(request.userMessage);
        const status = (state: TaskState, message?: string) =>
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            metadata: undefined,
            status: {
              state,
              timestamp: new Date().toISOString(),
              message: message
                ? {
                    messageId: `${taskId}:${state}`,
                    taskId,
                    contextId,
                    role: 2,
                    parts: [text(message)],
                    metadata: undefined,
                    extensions: [],
                    referenceTaskIds: [],
                  }
                : undefined,
            },
          });
        bus.publish(
          AgentEvent.task({
            id: taskId,
            contextId,
            status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
            artifacts: [],
            history: [request.userMessage],
            metadata: undefined,
          }),
        );
        if (this.mode === 'ask') {
          bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which city?'));
          return;
        }
        if (this.mode === 'hold') await this.held;
        const asked = request.userMessage.parts
          .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
          .join('');
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            append: false,
            lastChunk: true,
            metadata: undefined,
            artifact: {
              artifactId: 'a',
              name: 'answer',
              description: '',
              parts: [text(`Sunny, for: ${asked}`)],
              metadata: undefined,
              extensions: [],
            },
          }),
        );
        bus.publish(status(TaskState.TASK_STATE_COMPLETED));
      },
      cancelTask: async () => undefined,
    };
  }
}
