// Where recorded histories live: one directory per release (histories/<version>/<name>.json), kept as that release
// recorded them, so today's workflow code must replay what every earlier release wrote.
import fs from 'node:fs';
import path from 'node:path';
import { startedAttributes, type RecordedHistory } from './recorded-history';

export const HISTORIES_DIR = path.join(__dirname, 'histories');

/** One recorded history: `<release>/<name>` names it in test titles. */
export interface Fixture {
  release: string;
  name: string;
  history: RecordedHistory;
}

/** The release being built (package.json's version): new recordings go to its directory. */
export function currentRelease(): string {
  return (JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string })
    .version;
}

/** The directory of a release's histories. */
export const releaseDir = (release: string): string => path.join(HISTORIES_DIR, release);

/** Every release's histories, oldest release first. */
export function allFixtures(): Fixture[] {
  const releases = fs
    .readdirSync(HISTORIES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  return releases.sort(byVersion).flatMap((release) =>
    fs
      .readdirSync(releaseDir(release))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => ({
        release,
        name: file.slice(0, -'.json'.length),
        history: readHistory(path.join(releaseDir(release), file)),
      })),
  );
}

const readHistory = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as RecordedHistory;

/**
 * The workflow id a fixture's run had (replay must use it: child workflow ids derive from it and are checked). A
 * history does not hold its own id, so: a child's is in its parent's history (same release), a continued run's is its
 * chain's first run's, and a root's is `replay-<name>`, as record-histories.ts names them.
 */
export function workflowIdOf(fixture: Fixture, all: Fixture[]): string {
  const started = startedAttributes(fixture.history);
  const sameRelease = all.filter((f) => f.release === fixture.release);
  const run = (runId?: string) =>
    sameRelease.find((f) => runId && startedAttributes(f.history).originalExecutionRunId === runId);
  const parent = run(started.parentWorkflowExecution?.runId);
  if (started.parentWorkflowExecution) {
    const initiated = parent?.history.events.find((e) => e.eventId === started.parentInitiatedEventId);
    const id = initiated?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (!id)
      throw new Error(`${fixture.release}/${fixture.name} is a child: record its parent's history in the same release`);
    return id;
  }
  const previous = run(started.continuedExecutionRunId);
  return previous ? workflowIdOf(previous, all) : `replay-${fixture.name}`;
}

/** Orders versions like 0.2.0 < 0.10.0. */
function byVersion(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}
