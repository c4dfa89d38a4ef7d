import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describeEventStoreContract } from '../contract/event-store.contract';
import { createKurrentDbEventStore } from './kurrentdb-event-store';

// tools/jest/global-setup.cjs decides reachability once per run (KURRENTDB_URL, else a local image via Testcontainers).
const url = process.env.STAGECRAFT_KURRENTDB_URL;
const notRun = url ? undefined : (process.env.STAGECRAFT_KURRENTDB_UNAVAILABLE ?? 'the Jest global setup did not probe for KurrentDB');

if (notRun) {
  const line = `kurrentdb contract suite NOT RUN: ${notRun}`;
  console.warn(line);
  // Jest drops the console output of a file whose tests are all skipped when it runs several files.
  process.stderr.write(`${line}\n`);
  const reports = join(workspaceRoot(__dirname), 'reports');
  mkdirSync(reports, { recursive: true });
  appendFileSync(join(reports, 'not-run.txt'), `kurrentdb contract suite (libs/event-store): ${notRun}\n`);
}

describeEventStoreContract('kurrentdb', () => createKurrentDbEventStore({ connectionString: url ?? '' }), { skipReason: notRun });

(notRun ? describe.skip : describe)('kurrentdb adapter', () => {
  it("never returns the server's own system events", async () => {
    const store = createKurrentDbEventStore({ connectionString: url ?? '' });
    const events = await store.readAll({ maxCount: 500 });
    await store.close();
    expect(events.filter((e) => e.streamId.startsWith('$') || e.type.startsWith('$'))).toEqual([]);
  });
});

function workspaceRoot(from: string): string {
  return existsSync(join(from, 'nx.json')) || dirname(from) === from ? from : workspaceRoot(dirname(from));
}
