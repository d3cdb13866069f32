// The container setup as the static tests read it (tests/unit/docker-compose and dockerfile): docker-compose.yml
// parsed as docker compose reads it, the Dockerfile's instructions by stage, and where compiled entry points come from.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const repoRoot = path.resolve(__dirname, '..', '..');
export const readRepoFile = (relative: string): string => readFileSync(path.join(repoRoot, relative), 'utf8');

export interface ComposeService {
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

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

// Merge keys (`<<: *bridge`) as docker compose reads them.
export const compose = parse(readRepoFile('docker-compose.yml'), { merge: true }) as ComposeFile;
export const services = compose.services ?? {};
export const serviceEntries = Object.entries(services);

export const dependsOn = (service: ComposeService): string[] =>
  Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});

export const buildContext = (service: ComposeService): string | undefined =>
  typeof service.build === 'string' ? service.build : service.build ? (service.build.context ?? '.') : undefined;

export const commandArgs = (command: string | string[] | undefined): string[] =>
  command === undefined ? [] : Array.isArray(command) ? command : command.trim().split(/\s+/);

export const environment = (service: ComposeService): Record<string, string> => {
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
export const tsconfig = JSON.parse(readRepoFile('tsconfig.json')) as {
  compilerOptions: { outDir: string; rootDir: string };
};
export const outDir = path.normalize(tsconfig.compilerOptions.outDir);

/** The TypeScript source a compiled `dist/X.js` path comes from, relative to the repo root. */
export const sourceOf = (compiledPath: string): string => {
  const relativeToOut = path.relative(outDir, path.normalize(compiledPath));
  if (relativeToOut.startsWith('..') || path.isAbsolute(relativeToOut) || !relativeToOut.endsWith('.js')) {
    throw new Error(`${compiledPath} is not a .js file under ${outDir}/`);
  }
  return path.join(tsconfig.compilerOptions.rootDir, relativeToOut.replace(/\.js$/, '.ts'));
};

/** The script `node` is asked to run, from a command like ["node", "dist/worker/main.js"]. */
export const nodeEntry = (args: string[]): string => {
  expect(args[0]).toBe('node');
  const script = args.slice(1).find((arg) => !arg.startsWith('-'));
  if (script === undefined) throw new Error(`no script in command ${JSON.stringify(args)}`);
  return script;
};

export interface DockerInstruction {
  keyword: string;
  args: string;
  stage: number;
}

/** Dockerfile instructions with continuation lines joined and comments dropped, each tagged with its stage. */
export const dockerInstructions = (text: string): DockerInstruction[] => {
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

export const dockerfile = dockerInstructions(readRepoFile('Dockerfile'));
export const finalStage = Math.max(...dockerfile.map((i) => i.stage));
export const stageNames = dockerfile.filter((i) => i.keyword === 'FROM').map((i) => /\bAS\s+(\S+)/i.exec(i.args)?.[1]);

/** COPY/ADD arguments without flags: sources then destination (JSON-array form or whitespace-separated). */
export const copyArgs = (
  instruction: DockerInstruction,
): { flags: string[]; sources: string[]; destination: string } => {
  const words = instruction.args.startsWith('[')
    ? (JSON.parse(instruction.args) as string[])
    : instruction.args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  return { flags, sources: paths.slice(0, -1), destination: paths[paths.length - 1] };
};

export const copies = dockerfile.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD');
export const contextCopies = copies.filter((i) => !copyArgs(i).flags.some((f) => f.startsWith('--from')));
