// The Temporal server's YAML config, shared by the embedded dev server (SQLite) and the production shape
// (PostgreSQL): all four services in one process on loopback, a single cluster, dynamic config from a file. Only
// the persistence block differs between them.

/** Loopback ports of the server's four services (gRPC), and the frontend's HTTP port. */
export interface TemporalServicePorts {
  frontend: number;
  http: number;
  matching: number;
  history: number;
  worker: number;
}

/** Membership (ringpop) ports of the four services. */
export interface TemporalMembershipPorts {
  frontend: number;
  matching: number;
  history: number;
  worker: number;
}

/** What a server config is made of. */
export interface TemporalConfigParts {
  /** The `persistence:` block's body, indented by two spaces (stores, shards, datastores). */
  persistence: string;
  ports: TemporalServicePorts;
  membership: TemporalMembershipPorts;
  dynamicConfigFile: string;
}

const SERVICES = ['frontend', 'matching', 'history', 'worker'] as const;

/** The server's config file: logs at error level to stdout, every service on 127.0.0.1. */
export function temporalServerConfig(o: TemporalConfigParts): string {
  const services = SERVICES.map(
    (name) => `
  ${name}:
    rpc: { grpcPort: ${o.ports[name]}, membershipPort: ${o.membership[name]}, bindOnIP: 127.0.0.1${name === 'frontend' ? `, httpPort: ${o.ports.http}` : ''} }`,
  ).join('');
  return `log:
  stdout: true
  level: error
persistence:
${o.persistence}
global:
  membership: { maxJoinDuration: 30s, broadcastAddress: 127.0.0.1 }
services:${services}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active: { enabled: true, initialFailoverVersion: 1, rpcName: frontend, rpcAddress: "127.0.0.1:${o.ports.frontend}", httpAddress: "127.0.0.1:${o.ports.http}" }
dcRedirectionPolicy: { policy: noop }
dynamicConfigClient: { filepath: ${JSON.stringify(o.dynamicConfigFile)}, pollInterval: 10s }
`;
}
