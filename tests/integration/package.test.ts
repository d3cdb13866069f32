// Agio as a package in someone else's project: `npm pack` (which builds dist/ and the prebuilt workflow bundle), the
// tarball installed into an empty project, and that project's own agents (in code and in a YAML file), tool and worker
// run against the dev server, typechecked against the package's declarations first. The bin answers too.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { projectRoot } from '../../worker/project-root';
import { testEnv } from '../helpers/test-env';
import { useTestBed } from '../helpers/test-bed';
import { uniqueId } from '../helpers/temporal';

const run = promisify(execFile);
const ROOT = projectRoot();
const FIXTURE = path.join(ROOT, 'tests', 'fixtures', 'consumer');

describe('the packed package in a project of its own', () => {
  const bed = useTestBed({ worker: false });
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    project = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-consumer-'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', project], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    tarball = path.join(project, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
    await fs.promises.cp(FIXTURE, project, { recursive: true });
    await fs.promises.mkdir(path.join(project, 'src'));
    await fs.promises.rename(path.join(project, 'main.ts'), path.join(project, 'src', 'main.ts'));
    const zod = (
      JSON.parse(await fs.promises.readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies.zod;
    await fs.promises.writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, dependencies: { agio: `file:${tarball}`, zod } }),
    );
    // From npm's cache where it can: the suite's own install has just fetched every dependency.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: project,
      maxBuffer: 64 * 1024 * 1024,
    });
  }, 600_000);

  afterAll(async () => {
    if (project) await fs.promises.rm(project, { recursive: true, force: true });
  });

  it('ships typed entry points, the prebuilt workflow bundle, the example agents and the bin', async () => {
    const installed = path.join(project, 'node_modules', 'agio');
    for (const file of [
      'dist/index.d.ts',
      'dist/common/index.d.ts',
      'dist/worker/index.d.ts',
      'dist/client/index.d.ts',
      'dist/bridge/index.d.ts',
      'dist/workflow-bundle.js',
      'dist/ui/index.html',
      'agents/examples.yaml',
    ]) {
      expect({ file, exists: fs.existsSync(path.join(installed, file)) }).toEqual({ file, exists: true });
    }
    // The package holds no sources, tests or benchmarks, and no trace of the directory it was built in.
    expect(fs.existsSync(path.join(installed, 'dist', 'tests'))).toBe(false);
    expect(fs.existsSync(path.join(installed, 'workflows'))).toBe(false);
    expect(fs.existsSync(path.join(installed, 'ui'))).toBe(false);
    // The packaged bridge finds the packaged viewer.
    const found = await run(
      process.execPath,
      [
        '-e',
        `console.log(require(${JSON.stringify(path.join(installed, 'dist', 'bridge', 'viewer-route.js'))}).builtViewerDir())`,
      ],
      { cwd: project },
    );
    expect(found.stdout.trim()).toBe(path.join(fs.realpathSync(installed), 'dist', 'ui'));
    expect(await fs.promises.readFile(path.join(installed, 'dist', 'workflow-bundle.js'), 'utf8')).not.toContain(ROOT);
    const help = await run(path.join(project, 'node_modules', '.bin', 'agio'), ['help']);
    expect(help.stdout).toContain('serve [--port N] [--agents FILE]');
  });

  it("typechecks the project against the package's declarations and runs its own agents, tool and worker", async () => {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [
      tsc,
      '-p',
      project,
      '--typeRoots',
      path.join(ROOT, 'node_modules', '@types'),
      '--types',
      'node',
    ]).catch((err: { stdout: string }) => {
      throw new Error(`the consumer project does not typecheck:\n${err.stdout}`);
    });

    bed.server.scriptFor(
      'You delegate to the helper.',
      toolCalls([toolCall('helper', { task: 'Say hi loudly.' })]),
      text('The helper said: HI!'),
    );
    bed.server.scriptFor('You help by shouting.', toolCalls([toolCall('shout', { text: 'hi' })]), text('HI!'));
    bed.server.scriptFor(
      'You announce things loudly',
      toolCalls([toolCall('shout', { text: 'release' })]),
      text('RELEASE!'),
    );
    bed.server.scriptFor('You count loudly.', text('{"loud":"THREE","count":3}'));
    const { stdout } = await run(process.execPath, [path.join(project, 'dist', 'main.js')], {
      cwd: project,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: testEnv('temporalAddress'),
        TASK_QUEUE: uniqueId('consumer'),
        MODEL_URL: bed.model().baseURL,
      },
      timeout: 120_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      boss: string;
      announcer: string;
      counted: string;
      events: string[];
      buildId: string;
    };
    expect(result.boss).toBe('The helper said: HI!');
    expect(result.announcer).toBe('RELEASE!');
    expect(result.counted).toBe('three 3');
    // The helper ran nested (depth 1) in the boss's stream, and the tool's own output reached the model.
    expect(result.events).toEqual(
      expect.arrayContaining(['0:RUN_STARTED', '1:RUN_STARTED', '1:RUN_COMPLETED', '0:RUN_COMPLETED']),
    );
    const shoutResults = bed.server.requests.flatMap((r) =>
      (r.body.messages as { role: string; content?: string }[]).filter((m) => m.role === 'tool').map((m) => m.content),
    );
    expect(shoutResults).toEqual(expect.arrayContaining(['HI!', 'RELEASE!']));
    expect(result.buildId).toMatch(/^wf-[0-9a-f]{12}$/);
  }, 180_000);
});
