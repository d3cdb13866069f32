// Agio as a package in someone else's project: `npm pack` (which builds dist/ and the prebuilt workflow bundle) once,
// the tarball installed into an empty project, and that project's own agents (in code and in a YAML file), tool and
// worker run against the dev server, typechecked against the package's declarations first (node16, node10, bundler).
// The bin answers too. Then examples/quickstart, copied into a fresh CommonJS and a fresh ESM project, installed and
// run as its README says: the worker, the backend service answering a question, and the example's own test.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { projectRoot } from '../../platform/project-root';
import { testEnv } from '../helpers/test-env';
import { useTestBed } from '../helpers/test-bed';
import { uniqueId } from '../helpers/temporal';
import { installTarball, ourRange, packAgio, startProjectProcess } from '../helpers/packed-projects';

const run = promisify(execFile);
const ROOT = projectRoot();
const FIXTURE = path.join(ROOT, 'tests', 'fixtures', 'consumer');
const QUICKSTART = path.join(ROOT, 'examples', 'quickstart');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

describe('the packed package in a project of its own', () => {
  const bed = useTestBed({ worker: false });
  let work: string;
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    work = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-packed-'));
    tarball = await packAgio(work);
    project = path.join(work, 'consumer');
    await fs.promises.cp(FIXTURE, project, { recursive: true });
    await fs.promises.mkdir(path.join(project, 'src'));
    await fs.promises.rename(path.join(project, 'main.ts'), path.join(project, 'src', 'main.ts'));
    await fs.promises.writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, dependencies: { zod: ourRange('zod') } }),
    );
    await installTarball(project, tarball);
  }, 600_000);

  afterAll(async () => {
    if (work) await fs.promises.rm(work, { recursive: true, force: true });
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
        `console.log(require(${JSON.stringify(path.join(installed, 'dist', 'bridge', 'routes', 'viewer.js'))}).builtViewerDir())`,
      ],
      { cwd: project },
    );
    expect(found.stdout.trim()).toBe(path.join(fs.realpathSync(installed), 'dist', 'ui'));
    expect(await fs.promises.readFile(path.join(installed, 'dist', 'workflow-bundle.js'), 'utf8')).not.toContain(ROOT);
    // A client-only install carries none of the server side's optional peers; what needs one says what to install.
    for (const peer of ['fastify', 'mongodb', '@nats-io/transport-node', '@modelcontextprotocol/sdk', 'tsx']) {
      expect({ peer, installed: fs.existsSync(path.join(project, 'node_modules', peer)) }).toEqual({
        peer,
        installed: false,
      });
    }
    const bridge = await run(process.execPath, ['-e', "require('agio').createBridge({})"], { cwd: project }).catch(
      (err: { stderr: string }) => err.stderr,
    );
    expect(bridge).toContain('needs the package "fastify", which is not installed: npm install fastify @fastify/cors');
    const help = await run(path.join(project, 'node_modules', '.bin', 'agio'), ['help']);
    expect(help.stdout).toContain('serve [--port N] [--agents FILE]');
  });

  it("typechecks the project against the package's declarations and runs its own agents, tool and worker", async () => {
    // As the project says (node16), as an old `module: commonjs` project resolves (node10: typesVersions) and as a
    // bundler does; only the first emits.
    for (const resolution of [
      [],
      ['--noEmit', '--module', 'commonjs', '--moduleResolution', 'node10'],
      ['--noEmit', '--module', 'preserve', '--moduleResolution', 'bundler'],
    ]) {
      const types = ['--typeRoots', path.join(ROOT, 'node_modules', '@types'), '--types', 'node'];
      await run(process.execPath, [TSC, '-p', project, ...types, ...resolution]).catch((err: { stdout: string }) => {
        throw new Error(`the consumer project does not typecheck (${resolution.join(' ')}):\n${err.stdout}`);
      });
    }

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

  for (const [kind, type] of [
    ['CommonJS', undefined],
    ['ESM', 'module'],
  ] as const) {
    it(`runs the quickstart in a fresh ${kind} project: installed, a first run through its service, typechecked, its own test`, async () => {
      const dir = path.join(work, `quickstart-${kind}`);
      await fs.promises.cp(QUICKSTART, dir, { recursive: true, filter: (src) => !src.includes('node_modules') });
      const manifest = JSON.parse(await fs.promises.readFile(path.join(dir, 'package.json'), 'utf8')) as object;
      await fs.promises.writeFile(path.join(dir, 'package.json'), JSON.stringify({ ...manifest, type }, null, 2));
      const began = performance.now();
      const warnings = await installTarball(dir, tarball);
      const installed = performance.now();
      expect(warnings).not.toContain('EBADENGINE');

      bed.server.scriptFor(
        'You answer customers',
        toolCalls([toolCall('lookup_order', { orderId: 'A-1002' })]),
        text('Order A-1002 is being packed and arrives next Monday.'),
      );
      const env = {
        ...process.env,
        TEMPORAL_ADDRESS: testEnv('temporalAddress'),
        AGIO_TASK_QUEUE: uniqueId('quickstart'),
        OPENAI_BASE_URL: bed.model().baseURL,
        OPENAI_API_KEY: 'test',
        PORT: '0',
      };
      const tsx = path.join(dir, 'node_modules', '.bin', 'tsx');
      const worker = await startProjectProcess(tsx, ['src/worker.ts'], { cwd: dir, env, until: 'worker ready' });
      const listening = /listening on (http:\S+)/;
      const service = await startProjectProcess(tsx, ['src/server.ts'], { cwd: dir, env, until: listening });
      try {
        const res = await fetch(`${listening.exec(service.output())![1]}/questions`, {
          method: 'POST',
          body: JSON.stringify({ question: 'When does order A-1002 arrive?' }),
        });
        expect(await res.json()).toEqual({
          runId: expect.any(String),
          answer: 'Order A-1002 is being packed and arrives next Monday.',
        });
        const firstRun = performance.now();
        console.log(
          `${kind} quickstart: npm install of the tarball ${((installed - began) / 1000).toFixed(1)} s, first ` +
            `completed run ${((firstRun - began) / 1000).toFixed(1)} s after the install began`,
        );
        const toolResult = bed.server.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === 'tool');
        expect(toolResult.content).toContain('being packed');
      } finally {
        await service.stop();
        await worker.stop();
      }

      await run(process.execPath, [path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir]).catch(
        (err: { stdout: string }) => {
          throw new Error(`the ${kind} quickstart does not typecheck:\n${err.stdout}`);
        },
      );
      // Its own test (agio/testing) uses the suite's dev server: AGIO_TEST_TEMPORAL_ADDRESS is in the environment.
      const own = await run('npm', ['test'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).catch(
        (err: { stdout: string; stderr: string }) => {
          throw new Error(`the ${kind} quickstart's own test fails:\n${err.stdout}\n${err.stderr}`);
        },
      );
      expect(own.stdout).toMatch(/# pass 2\b/);
    }, 300_000);
  }
});
