// Static checks of the container setup (docker-compose.yml, Dockerfile, .dockerignore): nothing here runs
// Docker; it checks that the files agree with each other and with the repository, so a rename or a missing
// entry point fails here rather than at `docker compose up`.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { TUNED_DYNAMIC_CONFIG } from '../../devkit/dynamic-config';
import { bridgeEnvironment, workerEnvironment } from '../../devkit/production-env';

const repoRoot = path.resolve(__dirname, '..', '..');
const readRepoFile = (relative: string): string => readFileSync(path.join(repoRoot, relative), 'utf8');

interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: unknown[];
  volumes?: unknown[];
  environment?: Record<string, unknown> | string[];
  healthcheck?: { test?: string | string[] };
  deploy?: { replicas?: number };
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

// Merge keys (`<<: *bridge`) as docker compose reads them.
const compose = parse(readRepoFile('docker-compose.yml'), { merge: true }) as ComposeFile;
const services = compose.services ?? {};
const serviceEntries = Object.entries(services);

const dependsOn = (service: ComposeService): string[] =>
  Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});

const buildContext = (service: ComposeService): string | undefined =>
  typeof service.build === 'string' ? service.build : service.build ? (service.build.context ?? '.') : undefined;

const commandArgs = (command: string | string[] | undefined): string[] =>
  command === undefined ? [] : Array.isArray(command) ? command : command.trim().split(/\s+/);

const environment = (service: ComposeService): Record<string, string> => {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const [name, ...value] = String(entry).split('=');
        return [name, value.join('=')];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value === null ? '' : String(value)]));
};

// The compiled layout comes from tsconfig.json: outDir/X.js is compiled from rootDir/X.ts.
const tsconfig = JSON.parse(readRepoFile('tsconfig.json')) as { compilerOptions: { outDir: string; rootDir: string } };
const outDir = path.normalize(tsconfig.compilerOptions.outDir);

/** The TypeScript source a compiled `dist/X.js` path comes from, relative to the repo root. */
const sourceOf = (compiledPath: string): string => {
  const relativeToOut = path.relative(outDir, path.normalize(compiledPath));
  if (relativeToOut.startsWith('..') || path.isAbsolute(relativeToOut) || !relativeToOut.endsWith('.js')) {
    throw new Error(`${compiledPath} is not a .js file under ${outDir}/`);
  }
  return path.join(tsconfig.compilerOptions.rootDir, relativeToOut.replace(/\.js$/, '.ts'));
};

/** The script `node` is asked to run, from a command like ["node", "dist/worker/main.js"]. */
const nodeEntry = (args: string[]): string => {
  expect(args[0]).toBe('node');
  const script = args.slice(1).find((arg) => !arg.startsWith('-'));
  if (script === undefined) throw new Error(`no script in command ${JSON.stringify(args)}`);
  return script;
};

interface DockerInstruction {
  keyword: string;
  args: string;
  stage: number;
}

/** Dockerfile instructions with continuation lines joined and comments dropped, each tagged with its stage. */
const dockerInstructions = (text: string): DockerInstruction[] => {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const instructions: DockerInstruction[] = [];
  let stage = -1;
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const keyword = match[1].toUpperCase();
    if (keyword === 'FROM') stage += 1;
    instructions.push({ keyword, args: match[2].trim(), stage });
  }
  return instructions;
};

const dockerfile = dockerInstructions(readRepoFile('Dockerfile'));
const finalStage = Math.max(...dockerfile.map((i) => i.stage));
const stageNames = dockerfile.filter((i) => i.keyword === 'FROM').map((i) => /\bAS\s+(\S+)/i.exec(i.args)?.[1]);

/** COPY/ADD arguments without flags: sources then destination (JSON-array form or whitespace-separated). */
const copyArgs = (instruction: DockerInstruction): { flags: string[]; sources: string[]; destination: string } => {
  const words = instruction.args.startsWith('[')
    ? (JSON.parse(instruction.args) as string[])
    : instruction.args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  return { flags, sources: paths.slice(0, -1), destination: paths[paths.length - 1] };
};

const copies = dockerfile.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD');
const contextCopies = copies.filter((i) => !copyArgs(i).flags.some((f) => f.startsWith('--from')));

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

describe('Dockerfile', () => {
  it('builds in a separate stage from the node:20-bookworm-slim runtime', () => {
    const froms = dockerfile.filter((i) => i.keyword === 'FROM').map((i) => i.args.split(/\s+/)[0]);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const image of froms) expect(image).toBe('node:20-bookworm-slim');
  });

  it('installs only production dependencies in the runtime stage', () => {
    const runtimeRuns = dockerfile.filter((i) => i.stage === finalStage && i.keyword === 'RUN').map((i) => i.args);
    expect(runtimeRuns.some((run) => /\bnpm ci\b.*--omit=dev/.test(run))).toBe(true);
    expect(runtimeRuns.some((run) => /\bnpm run build\b/.test(run))).toBe(false);
  });

  it('copies the compiled dist/ from the build stage into the runtime stage', () => {
    const fromBuild = copies
      .filter((i) => i.stage === finalStage)
      .map(copyArgs)
      .filter(({ flags }) => flags.some((f) => f.startsWith('--from=')));
    expect(fromBuild.length).toBeGreaterThan(0);
    for (const { flags } of fromBuild) {
      const source = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      expect(stageNames.slice(0, finalStage)).toContain(source);
    }
    expect(fromBuild.some(({ sources }) => sources.some((s) => /(^|\/)dist\/?$/.test(s)))).toBe(true);
  });

  it('runs as a non-root user', () => {
    const users = dockerfile.filter((i) => i.stage === finalStage && i.keyword === 'USER').map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1]).not.toMatch(/^(root|0)(:|$)/);
  });

  it('starts the worker by default, from an entry point compiled from a source in the repo', () => {
    const cmds = dockerfile.filter((i) => i.stage === finalStage && i.keyword === 'CMD');
    expect(cmds.length).toBeGreaterThan(0);
    const cmd = JSON.parse(cmds[cmds.length - 1].args) as string[];
    expect(cmd).toEqual(['node', 'dist/worker/main.js']);
    const source = sourceOf(nodeEntry(cmd));
    expect({ source, exists: existsSync(path.join(repoRoot, source)) }).toEqual({ source, exists: true });
  });

  it('documents the connection settings with ENV defaults', () => {
    const env = dockerfile
      .filter((i) => i.stage === finalStage && i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bTEMPORAL_ADDRESS=\S+/);
    expect(env).toMatch(/\bTEMPORAL_NAMESPACE=default\b/);
    expect(env).toMatch(/\bAGIO_TASK_QUEUE=agio\b/);
    expect(env).toMatch(/\bPORT=8080\b/);
  });

  it('copies only files and directories that exist in the build context', () => {
    const sources = contextCopies.flatMap((i) => copyArgs(i).sources);
    expect(sources).toEqual(
      expect.arrayContaining(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']),
    );
    for (const source of sources) {
      expect({ source, exists: existsSync(path.join(repoRoot, source)) }).toEqual({ source, exists: true });
    }
  });

  it('copies every source directory that tsconfig.build.json compiles into the build stage', () => {
    const buildConfig = JSON.parse(readRepoFile('tsconfig.build.json')) as { include: string[] };
    const buildStageSources = contextCopies.filter((i) => i.stage < finalStage).flatMap((i) => copyArgs(i).sources);
    for (const included of buildConfig.include) {
      expect({
        included,
        copied: buildStageSources.some((s) => s === '.' || path.normalize(s) === path.normalize(included)),
      }).toEqual({
        included,
        copied: true,
      });
    }
  });

  it("copies the viewer's sources into the build stage (npm run build builds dist/ui)", () => {
    const buildStageSources = contextCopies.filter((i) => i.stage < finalStage).flatMap((i) => copyArgs(i).sources);
    expect(buildStageSources).toContain('ui');
  });
});

describe('.dockerignore', () => {
  it('keeps host build output, dependencies and local state out of the build context', () => {
    const ignored = readRepoFile('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => line.replace(/^\/|\/$/g, ''));
    expect(ignored).toEqual(
      expect.arrayContaining(['node_modules', 'dist', '.tools', '.agio', '.git', 'coverage', 'bench/results']),
    );
  });
});
