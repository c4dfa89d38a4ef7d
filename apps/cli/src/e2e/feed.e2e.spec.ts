import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FeedEvent, FeedRun, foldFeedRun, runEvents, runOfStream, streams, toFeedEvent } from '@stagecraft/contracts';
import { EventStore, createSqliteEventStore, readEvents } from '@stagecraft/event-store';
import { foldRun } from '@stagecraft/run';
import { REPO_ROOT, runCli } from '@stagecraft/testing';

/**
 * The public run feed (feed/v1, docs/decisions/0046) against real runs: every event a previous build
 * stored has a public event that passes its schema and keeps the log's own parts out, a client folding
 * the public events ends where the domain's fold of the stored ones ends, and `chat --json` prints
 * exactly such events.
 */
const FIXTURE = join(REPO_ROOT, 'apps', 'cli', 'src', 'e2e', 'fixtures', 'previous-build');
const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
/** Names and values only the log holds: bodies by hash, chain links and commit marks, the writer, upstream context. */
const INTERNAL = ['"messageHashes"', '"newBodies"', '"promptHash"', '"modelCallId"', '"covers"', '"upstream"', '"commitStart"', '"writer"'];

/** What a client learns of a run's end, from either fold. */
function ending(run: FeedRun | ReturnType<typeof foldRun>) {
  const r = run as { status: string } & Partial<Record<'answer' | 'deliveryState' | 'qaReport' | 'failure' | 'cancellation', unknown>>;
  return {
    status: r.status,
    answer: r.status === 'completed' ? r.answer : null,
    deliveryState: r.status === 'completed' ? r.deliveryState : null,
    qaReport: r.status === 'new' ? null : r.qaReport,
    failure: r.status === 'failed' ? r.failure : null,
    cancellation: r.status === 'cancelled' ? r.cancellation : null,
  };
}

/** Valid against the schema, and nothing the schema does not name (parsing keeps only what it names). */
function expectPublic(event: unknown, where: string): void {
  const parsed = FeedEvent.safeParse(event);
  expect({ where, valid: parsed.success, issues: parsed.error?.issues.slice(0, 3) }).toEqual({ where, valid: true, issues: undefined });
  expect({ where, event: parsed.data }).toEqual({ where, event });
  const text = JSON.stringify(event);
  for (const name of INTERNAL) expect({ where, name, leaked: text.includes(name) }).toEqual({ where, name, leaked: false });
}

describe('the public run feed against real runs', () => {
  let dir: string;
  let store: EventStore;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-feed-'));
    writeFileSync(join(dir, 'previous.db'), gunzipSync(readFileSync(join(FIXTURE, 'events.db.gz'))));
    store = createSqliteEventStore({ path: join(dir, 'previous.db') });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("maps every event of every run a previous build stored, and a client's fold ends where the domain's does", async () => {
    const runIds = [...new Set((await store.readAll()).map((e) => runOfStream(e.streamId)).filter((id) => id !== undefined))];
    expect(runIds.length).toBeGreaterThanOrEqual(5);
    let mapped = 0;
    for (const runId of runIds) {
      const stored = await readEvents(store, streams.run(runId), runEvents);
      const events = stored.map((e) => toFeedEvent({ ...e, streamId: streams.run(runId) }));
      events.forEach((event, i) => {
        expect({ runId, i, mapped: event !== null }).toEqual({ runId, i, mapped: true });
        expectPublic(event, `${runId}#${i} ${stored[i].type}`);
        expect(event).toMatchObject({ version: 1, id: stored[i].id, position: String(stored[i].position), metadata: { runId } });
      });
      mapped += events.length;
      expect({ runId, ...ending(foldFeedRun(events as FeedEvent[])) }).toEqual({ runId, ...ending(foldRun(stored)) });
    }
    console.log(`feed/v1: ${mapped} stored events of ${runIds.length} runs mapped, each valid and without the log's own parts`);
  });

  it('chat --json prints the public events, each valid and version 1, and the result folded from them', async () => {
    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const args = ['chat', 'Summarise this project in NOTES.md', '--root', project, '--mode', 'agent', '--reasoning', '--json'];
    const { code, stdout } = await runCli([...args, '--store', `sqlite:${join(dir, 'chat.db')}`], env, 60_000);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    const events = lines.slice(0, -1);
    expect(events.length).toBeGreaterThan(10);
    events.forEach((event, i) => expectPublic(event, `line ${i}`));
    const run = foldFeedRun(events as FeedEvent[]);
    expect(run.status).toBe('completed');
    expect(lines.at(-1)).toMatchObject({ answer: run.status === 'completed' ? run.answer : '?', deliveryState: 'DONE' });
  });
});
