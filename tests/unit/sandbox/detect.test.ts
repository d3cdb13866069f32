// How a worker decides on its sandbox: bubblewrap when it starts here, the explicit unsafe switch, or none (the tools
// then refuse); limits from the environment; and what the worker logs for each.
import os from 'node:os';
import { describeSandbox, detectSandbox, limitsFromEnv } from '../../../activities/sandbox/detect';
import { DEFAULT_SANDBOX_LIMITS } from '../../../activities/sandbox/bwrap-args';

const workspaceRoot = os.tmpdir();

test('uses bubblewrap where it starts (this machine installs it)', async () => {
  const sandbox = await detectSandbox({ workspaceRoot, env: process.env });
  expect(sandbox.state.kind).toBe('bwrap');
  expect(describeSandbox(sandbox).level).toBe('info');
});

test('without bwrap on PATH there is no sandbox, and the worker says the tools will refuse', async () => {
  const sandbox = await detectSandbox({ workspaceRoot, env: { PATH: '/nonexistent' } });
  expect(sandbox.state).toEqual({ kind: 'unavailable', reason: 'bubblewrap (bwrap) is not installed' });
  expect(() => sandbox.check()).toThrow(/cannot run workspace tools.*AGIO_UNSAFE_NO_SANDBOX=1/);
  expect(describeSandbox(sandbox)).toMatchObject({ level: 'error', message: expect.stringMatching(/NO SANDBOX/) });
});

test('AGIO_UNSAFE_NO_SANDBOX=1 runs without one, and the worker warns loudly', async () => {
  const sandbox = await detectSandbox({ workspaceRoot, env: { PATH: process.env.PATH, AGIO_UNSAFE_NO_SANDBOX: '1' } });
  expect(sandbox.state.kind).toBe('unsafe');
  expect(describeSandbox(sandbox)).toMatchObject({
    level: 'error',
    message: expect.stringMatching(/WITHOUT A SANDBOX/),
  });
});

test('limits come from AGIO_SANDBOX_* variables, and nonsense is refused', () => {
  expect(limitsFromEnv({ AGIO_SANDBOX_FILE_SIZE_MB: '16', AGIO_SANDBOX_PROCESSES: '64' })).toEqual({
    fileSizeBytes: 16 * 1024 ** 2,
    processes: 64,
  });
  expect(() => limitsFromEnv({ AGIO_SANDBOX_MEMORY_MB: '-1' })).toThrow(/AGIO_SANDBOX_MEMORY_MB/);
  expect(DEFAULT_SANDBOX_LIMITS.processes).toBe(256);
});
