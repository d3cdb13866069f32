// An A2A agent card generated from an Agio agent's spec: its name and description, one skill (the agent itself, with
// its tools and sub-agents as tags), streaming, push notifications when the bridge has webhooks, and bearer auth.
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { AnyAgentSpec } from '../../common';

/** Package version the cards advertise as the agent's version when the spec has none. */
const CARD_VERSION = '1.0.0';

/** Where a card's agent answers, and what the bridge behind it can do. */
export interface CardOptions {
  /** The JSON-RPC endpoint of this agent (absolute URL). */
  url: string;
  /** Push notifications are delivered as Agio webhooks: only with the bridge's stores. */
  pushNotifications: boolean;
}

/** The tags of an agent's skill: its kind, and the names of its tools or sub-agents. */
function tagsOf(agent: AnyAgentSpec): string[] {
  const names =
    agent.kind === 'llm'
      ? agent.tools.map((t) => (typeof t === 'string' ? t : t.name))
      : agent.subAgents.map((s) => s.name);
  return [agent.kind, ...names].slice(0, 32);
}

/** The card of one agent. */
export function agentCardFor(agent: AnyAgentSpec, opts: CardOptions): AgentCard {
  const description = agent.description || `Agio agent "${agent.name}"`;
  const skill: AgentSkill = {
    id: agent.name,
    name: agent.name,
    description,
    tags: tagsOf(agent),
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
  return {
    name: agent.name,
    description,
    supportedInterfaces: [{ url: opts.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: CARD_VERSION,
    capabilities: {
      streaming: true,
      pushNotifications: opts.pushNotifications,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'Bearer',
            bearerFormat: '',
            description: "An Agio bridge token (AGIO_TOKENS): its tenant's tasks only",
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [skill],
    signatures: [],
  };
}
