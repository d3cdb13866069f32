// Static checks of docker-compose.yml: nothing here runs Docker; it checks that the file agrees with the Dockerfile,
// the production scripts and the repository, so a rename or a missing entry point fails here rather than at
// `docker compose up`.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { TUNED_DYNAMIC_CONFIG } from '../../devkit/dynamic-config';
import { bridgeEnvironment, workerEnvironment } from '../../devkit/production-env';
import {
  repoRoot,
  readRepoFile,
  compose,
  services,
  serviceEntries,
  dependsOn,
  buildContext,
  commandArgs,
  environment,
  sourceOf,
  nodeEntry,
} from '../helpers/container-files';

describe('docker-compose.yml', () => {
  it('defines the Temporal, PostgreSQL, UI, FerretDB, NATS, worker and two bridge services', () => {
    expect(Object.keys(services).sort()).toEqual(
      expect.arrayContaining([
        'bridge',
        'bridge-2',
        'ferretdb',
        'nats',
        'postgresql',
        'temporal',
        'temporal-ui',
        'worker',
      ]),
    );
  });

  it('is the shape scripts/production-stack starts: two workers, two bridges, the same variables', () => {
    expect(services.worker.deploy?.replicas).toBe(2);
    const endpoints = {
      temporalAddress: 't',
      namespace: 'n',
      taskQueue: 'q',
      mongoUri: 'm',
      natsUrl: 'n',
      agentsFile: 'a',
    };
    const stack = {
      worker: workerEnvironment(endpoints, { dataDir: 'd', model: { baseURL: 'b' } }),
      bridge: bridgeEnvironment(endpoints, { port: 1, tokens: 't', streamTokenSecret: 's' }),
    };
    // NODE_ENV comes from the image; AGIO_DATA_DIR keeps its default, as each container has a filesystem of its own.
    const fromImage = ['NODE_ENV', 'AGIO_DATA_DIR'];
    for (const name of ['worker', 'bridge', 'bridge-2'] as const) {
      const composed = Object.keys(environment(services[name]));
      const wanted = Object.keys(stack[name === 'worker' ? 'worker' : 'bridge']).filter((v) => !fromImage.includes(v));
      expect({ name, missing: wanted.filter((v) => !composed.includes(v)) }).toEqual({ name, missing: [] });
    }
  });

  it('gives the worker and the bridge one live lane: JetStream on the compose NATS, waited for until healthy', () => {
    expect(commandArgs(services.nats.command)).toContain('--jetstream');
    for (const name of ['worker', 'bridge', 'bridge-2']) {
      expect(environment(services[name]).AGIO_NATS_URL).toBe('nats://nats:4222');
      expect(dependsOn(services[name])).toContain('nats');
    }
  });

  it('gives every service either an image or a build', () => {
    for (const [name, service] of serviceEntries) {
      expect({ name, hasImageOrBuild: service.image !== undefined || service.build !== undefined }).toEqual({
        name,
        hasImageOrBuild: true,
      });
    }
  });

  it('only depends on services it defines', () => {
    for (const [name, service] of serviceEntries) {
      for (const target of dependsOn(service)) {
        expect({ name, dependsOn: target, defined: target in services }).toEqual({
          name,
          dependsOn: target,
          defined: true,
        });
      }
    }
  });

  it('waits for service_healthy only on services that define a healthcheck', () => {
    for (const [name, service] of serviceEntries) {
      if (Array.isArray(service.depends_on) || !service.depends_on) continue;
      for (const [target, { condition }] of Object.entries(service.depends_on)) {
        if (condition !== 'service_healthy') continue;
        expect({ name, dependsOn: target, hasHealthcheck: services[target]?.healthcheck?.test !== undefined }).toEqual({
          name,
          dependsOn: target,
          hasHealthcheck: true,
        });
      }
    }
  });

  it('builds only from directories that exist and contain a Dockerfile', () => {
    const built = serviceEntries.filter(([, service]) => service.build !== undefined);
    expect(built.map(([name]) => name)).toEqual(expect.arrayContaining(['worker', 'bridge']));
    for (const [name, service] of built) {
      const context = path.resolve(repoRoot, buildContext(service) ?? '.');
      const dockerfileName =
        typeof service.build === 'object' ? (service.build.dockerfile ?? 'Dockerfile') : 'Dockerfile';
      expect({ name, contextIsDirectory: existsSync(context) && statSync(context).isDirectory() }).toEqual({
        name,
        contextIsDirectory: true,
      });
      expect({ name, hasDockerfile: existsSync(path.join(context, dockerfileName)) }).toEqual({
        name,
        hasDockerfile: true,
      });
    }
  });

  it('declares every named volume it mounts under top-level volumes', () => {
    const declared = Object.keys(compose.volumes ?? {});
    const used = serviceEntries.flatMap(([, service]) =>
      (service.volumes ?? [])
        .map((volume) => (typeof volume === 'string' ? volume.split(':')[0] : (volume as { source?: string }).source))
        // Bind mounts start with a path (./, ../, /, ~); anything else is a named volume.
        .filter((source): source is string => typeof source === 'string' && !/^[./~]/.test(source)),
    );
    expect(used.length).toBeGreaterThan(0);
    for (const volume of used) expect(declared).toContain(volume);
  });

  it("keeps PostgreSQL's data in a named volume, FerretDB's in a PostgreSQL database the schema step creates", () => {
    const isNamedVolume = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9][\w.-]*:/.test(v);
    expect((services.postgresql.volumes ?? []).some(isNamedVolume)).toBe(true);
    expect(environment(services.ferretdb).FERRETDB_POSTGRESQL_URL).toMatch(
      /^postgres:\/\/[^@]+@postgresql:5432\/ferretdb$/,
    );
    expect(readRepoFile('deploy/temporal/setup-postgres.sh')).toMatch(/for db in [^;]*\bferretdb\b/);
    expect(dependsOn(services.ferretdb)).toContain('temporal-schema');
  });

  it('runs worker and bridge entry points that are compiled from sources in the repo', () => {
    const entries = {
      worker: sourceOf(nodeEntry(commandArgs(services.worker.command))),
      bridge: sourceOf(nodeEntry(commandArgs(services.bridge.command))),
    };
    expect(entries).toEqual({ worker: path.join('worker', 'main.ts'), bridge: path.join('bridge', 'main.ts') });
    for (const [name, source] of Object.entries(entries)) {
      expect({ name, source, exists: existsSync(path.join(repoRoot, source)) }).toEqual({ name, source, exists: true });
    }
  });

  it('publishes only the bridges, on loopback, as quoted "127.0.0.1:host:container" strings on distinct host ports', () => {
    const hostPorts: string[] = [];
    for (const [name, service] of serviceEntries) {
      for (const port of service.ports ?? []) {
        // Unquoted, YAML could read 22:22 style values as numbers (base 60 in YAML 1.1); without an address, Docker
        // publishes on every interface.
        const loopbackString = typeof port === 'string' && /^127\.0\.0\.1:\d+:\d+$/.test(port);
        expect({ name, port, loopbackString }).toEqual({ name, port, loopbackString: true });
        hostPorts.push(String(port).split(':')[1]);
      }
    }
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
    // Temporal's gRPC port and Web UI have no authentication: never published.
    expect(services.temporal.ports).toBeUndefined();
    expect(services['temporal-ui'].ports).toBeUndefined();
    expect(services.bridge.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(services['bridge-2'].ports).toEqual(['127.0.0.1:8081:8080']);
  });

  it('points the workers and bridges at the compose Temporal and FerretDB services', () => {
    for (const name of ['worker', 'bridge', 'bridge-2']) {
      const env = environment(services[name]);
      expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(env.MONGODB_URI).toBe('mongodb://ferretdb:27017/agio');
      // The namespace exists before they start: its one-shot service runs once the server is healthy.
      expect(dependsOn(services[name])).toEqual(expect.arrayContaining(['temporal-namespace', 'ferretdb']));
    }
    expect(dependsOn(services['temporal-namespace'])).toEqual(['temporal']);
    expect(environment(services['temporal-ui']).TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('runs a Temporal server on which pinned runs can move at continue-as-new (1.30 or later), its schema set up by the matching admin tools', () => {
    const version = (image: string | undefined) =>
      /:(\d+)\.(\d+)\.\d+$/
        .exec(image ?? '')
        ?.slice(1)
        .map(Number);
    const [major, minor] = version(services.temporal.image) ?? [0, 0];
    expect(major * 100 + minor).toBeGreaterThanOrEqual(130);
    expect(version(services['temporal-schema'].image)).toEqual(version(services.temporal.image));
    expect(services.temporal.depends_on).toMatchObject({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
  });

  it('passes model settings through to the worker and requires the bridge tokens (no default token)', () => {
    const worker = environment(services.worker);
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AGIO_MODEL']) {
      expect(worker[name]).toBe(`\${${name}:-}`);
    }
    expect(environment(services.bridge).AGIO_TOKENS).toMatch(/^\$\{AGIO_TOKENS:\?[^}]+\}$/);
  });

  it("runs Temporal with the dev servers' tuned dynamic config, from a file it mounts", () => {
    const temporal = services.temporal;
    const target = environment(temporal).DYNAMIC_CONFIG_FILE_PATH;
    const mount = (temporal.volumes ?? []).map(String).find((v) => v.split(':')[1] === target);
    expect(mount).toBeDefined();
    const file = parse(readRepoFile(mount!.split(':')[0])) as Record<string, { value: unknown }[]>;
    for (const [key, value] of Object.entries(TUNED_DYNAMIC_CONFIG)) expect(file[key]?.[0]?.value).toEqual(value);
  });
});
