// The lint rules that keep the rooms and layers of docs/ARCHITECTURE.md: each room of workflows/ imports only the rooms
// below it (workflows/README.md), types included, and never workflows/index.ts; activities/, stores/, live/ and
// platform/ import nothing above them; activities/model/ imports of the rest of activities/ only the JSON Schema
// checks, the event publisher and the tool registry. Each forbidden import is shown to fail and each allowed one to
// pass.
import { lintAll, typeImport, valueImport, type Probe } from '../helpers/lint';

/** A file of each room, whose path a probe borrows. */
const roomFile = {
  events: 'workflows/events/wire.ts',
  lifecycle: 'workflows/lifecycle/control.ts',
  conversation: 'workflows/conversation/compaction.ts',
  nesting: 'workflows/nesting/agent-tool.ts',
  'agent-loop': 'workflows/agent-loop/agent-run.ts',
  composite: 'workflows/composite/loop-agent.ts',
  jobs: 'workflows/jobs/bulk-redrive.ts',
};
/** A module of each room, as a room imports it. */
const roomModule = {
  events: '../events/wire',
  lifecycle: '../lifecycle/control',
  conversation: '../conversation/compaction',
  nesting: '../nesting/agent-tool',
  'agent-loop': '../agent-loop/decisions',
  composite: '../composite/workflow-agent',
  jobs: '../jobs/session-runner',
};
type Room = keyof typeof roomFile;
/** What each room may import (workflows/README.md). */
const allowed: Record<Room, Room[]> = {
  events: [],
  lifecycle: ['events'],
  conversation: ['events'],
  nesting: ['events', 'lifecycle'],
  'agent-loop': ['events', 'lifecycle', 'conversation', 'nesting'],
  composite: ['events', 'lifecycle', 'nesting', 'agent-loop'],
  jobs: [],
};
const rooms = Object.keys(roomFile) as Room[];
const pairs = rooms.flatMap((from) =>
  rooms.filter((to) => to !== from).map((to) => ({ from, to, ok: allowed[from].includes(to) })),
);

/** Imports of the folders above activities/, stores/, live/ and platform/, each from a file of one of them. */
const layerFiles = ['activities/run-tool.ts', 'stores/index.ts', 'live/lane.ts', 'platform/project-root.ts'];
const upper = ['config', 'telemetry', 'client', 'worker', 'protocols', 'bridge', 'devkit', 'cli'];
const layerProbes = upper.map((folder, i) => {
  const filePath = layerFiles[i % layerFiles.length];
  const up = filePath.split('/').length - 1;
  return { folder, filePath, specifier: `${'../'.repeat(up)}${folder}` };
});

const MODEL_FILE = 'activities/model/call-model.ts';
const modelForbidden = [
  '../run-tool',
  '../persistence',
  '../sandbox/sandbox',
  '../tools/bash',
  '../workspace/session',
  '..',
];
const modelAllowed = [
  '../json-schema',
  '../publish',
  '../tools/registry',
  '../../common',
  '../../stores',
  '../../live/lane',
];

describe('lint rules of the rooms and layers', () => {
  jest.setTimeout(120_000);
  let results: string[][][];

  beforeAll(() => {
    const groups: Probe[][] = [
      pairs.map(({ from, to }) => ({ filePath: roomFile[from], code: valueImport(roomModule[to]) })),
      pairs.map(({ from, to }) => ({ filePath: roomFile[from], code: typeImport(roomModule[to]) })),
      rooms.map((room) => ({ filePath: roomFile[room], code: valueImport('..') })),
      layerProbes.map(({ filePath, specifier }) => ({ filePath, code: typeImport(specifier) })),
      modelForbidden.map((specifier) => ({ filePath: MODEL_FILE, code: valueImport(specifier) })),
      modelAllowed.map((specifier) => ({ filePath: MODEL_FILE, code: valueImport(specifier) })),
    ];
    // The import rules need no types: linted without the type-aware rules, which would build the whole program.
    const messages = lintAll(groups.flat(), { typed: false });
    results = groups.map((group) => messages.splice(0, group.length));
  });

  const refused = (pattern: RegExp) => [expect.stringMatching(pattern)];

  it.each(pairs.map((pair, i) => ({ ...pair, i })))(
    'workflows/$from/ importing workflows/$to/ (allowed: $ok), as a value and as a type',
    ({ ok, from, i }) => {
      const expected = ok ? [] : refused(new RegExp(`^no-restricted-imports: .*workflows/${from}/ may import only`));
      expect(results[0][i]).toEqual(expected);
      expect(results[1][i]).toEqual(expected);
    },
  );

  it.each(rooms.map((room, i) => ({ room, i })))('workflows/$room/ may not import workflows/index.ts', ({ i }) => {
    expect(results[2][i]).toContainEqual(expect.stringMatching(/^no-restricted-imports: /));
  });

  it.each(layerProbes.map((probe, i) => ({ ...probe, i })))(
    '$filePath may not import $folder/, not even its types',
    ({ i }) => {
      expect(results[3][i]).toEqual(refused(/^no-restricted-imports: .*may not import the folders above them/));
    },
  );

  it.each(modelForbidden.map((specifier, i) => ({ specifier, i })))(
    'activities/model/ may not import $specifier',
    ({ i }) => {
      expect(results[4][i]).toContainEqual(expect.stringMatching(/^no-restricted-imports: /));
    },
  );

  it.each(modelAllowed.map((specifier, i) => ({ specifier, i })))(
    'activities/model/ may import $specifier',
    ({ i }) => {
      expect(results[5][i]).toEqual([]);
    },
  );
});
