// The runtime configuration every Agio process composes from: which Temporal server it reaches and how, and the
// search attributes a process that starts runs registers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ensureSearchAttributes,
  loadEnv,
  localTarget,
  temporalTarget,
  workflowBundleFromEnv,
  workspaceOptionsFromEnv,
} from '../../config';
import { fakeOperatorConnection, SEARCH_ATTRIBUTES_BESIDES_TENANT } from '../helpers/search-attributes';

describe('temporalTarget', () => {
  it('reaches a local server on the default port without TLS when nothing is set', () => {
    expect(temporalTarget(loadEnv({}))).toEqual({ address: '127.0.0.1:7233', namespace: 'default', tls: false });
  });

  it('turns TLS on for an API key, which Temporal Cloud accepts over TLS only', () => {
    const env = loadEnv({
      TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'ns.acct',
      TEMPORAL_API_KEY: 'key',
    });
    expect(temporalTarget(env)).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      namespace: 'ns.acct',
      tls: true,
      apiKey: 'key',
    });
  });

  it('turns TLS on when TEMPORAL_TLS=true without a key', () => {
    expect(temporalTarget(loadEnv({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS: 'true' }))).toEqual({
      address: 'temporal:7233',
      namespace: 'default',
      tls: true,
    });
  });
});

describe('workspaceOptionsFromEnv', () => {
  it("keeps workspaces as the process's default says unless AGIO_WORKSPACE_SYNC names a mode, with the quota's overrides", () => {
    expect(workspaceOptionsFromEnv(loadEnv({}), 'store')).toEqual({ workspaceSync: 'store', workspaceQuota: {} });
    const env = loadEnv({
      AGIO_WORKSPACE_SYNC: 'off',
      AGIO_WORKSPACE_MAX_BYTES: '1048576',
      AGIO_WORKSPACE_MAX_FILES: '50',
    });
    expect(workspaceOptionsFromEnv(env, 'store')).toEqual({
      workspaceSync: 'off',
      workspaceQuota: { maxBytes: 1048576, maxFiles: 50 },
    });
    expect(() => loadEnv({ AGIO_WORKSPACE_SYNC: 'nfs' })).toThrow(/AGIO_WORKSPACE_SYNC/);
    expect(() => loadEnv({ AGIO_WORKSPACE_MAX_FILES: 'many' })).toThrow(/AGIO_WORKSPACE_MAX_FILES/);
  });
});

describe('workflowBundleFromEnv', () => {
  it('loads the file AGIO_WORKFLOW_BUNDLE names, leaves bundling to the worker when unset, and refuses a missing file', () => {
    expect(workflowBundleFromEnv(loadEnv({}))).toEqual({});
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-bundle-'));
    try {
      const file = path.join(dir, 'workflow-bundle.js');
      fs.writeFileSync(file, '// a bundle');
      expect(workflowBundleFromEnv(loadEnv({ AGIO_WORKFLOW_BUNDLE: file }))).toEqual({
        workflowBundle: { codePath: file },
      });
      const missing = path.join(dir, 'gone.js');
      expect(() => workflowBundleFromEnv(loadEnv({ AGIO_WORKFLOW_BUNDLE: missing }))).toThrow(
        `AGIO_WORKFLOW_BUNDLE: no workflow bundle at ${missing}`,
      );
      // A directory is not a bundle either.
      expect(() => workflowBundleFromEnv(loadEnv({ AGIO_WORKFLOW_BUNDLE: dir }))).toThrow(/no workflow bundle/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('localTarget', () => {
  it('connects plainly to a server this process started, whatever the environment says about a remote one', () => {
    expect(localTarget('127.0.0.1:41000', 'default')).toEqual({
      address: '127.0.0.1:41000',
      namespace: 'default',
      tls: false,
    });
  });
});

describe('ensureSearchAttributes', () => {
  const quiet = () => {
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
    return jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  };
  afterEach(() => jest.restoreAllMocks());

  it('adds only the missing attributes, each with its type', async () => {
    quiet();
    const addSearchAttributes = jest.fn(async () => ({}));
    const connection = fakeOperatorConnection({ AgioTenant: 2 }, addSearchAttributes);
    const added = await ensureSearchAttributes(connection, 'default', 'agio');
    expect(added).toEqual(Object.keys(SEARCH_ATTRIBUTES_BESIDES_TENANT));
    expect(addSearchAttributes).toHaveBeenCalledWith({
      namespace: 'default',
      searchAttributes: SEARCH_ATTRIBUTES_BESIDES_TENANT,
    });
  });

  it('warns instead of failing when the namespace refuses the call', async () => {
    const warn = quiet();
    const connection = {
      operatorService: { listSearchAttributes: async () => Promise.reject(new Error('PermissionDenied')) },
    };
    expect(await ensureSearchAttributes(connection as never, 'default', 'agio bridge')).toEqual([]);
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/^agio bridge: could not check .*PermissionDenied.*AgioTenant, AgioAgent, AgioRootRunId/),
    );
  });
});
