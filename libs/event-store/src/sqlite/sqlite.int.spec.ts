import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describeEventStoreContract } from '../contract/event-store.contract';
import { ConcurrencyError } from '../errors';
import { collect, expectStrictlyIncreasing, newEvents, uniqueStream } from '../contract/fixtures';
import { raceForSlots, type RaceResult } from './race-for-slots.testing';
import { createSqliteEventStore } from './sqlite-event-store';
import { verifyLogChain, verifyStreamChain } from '../chain/verify-chain';

const dir = mkdtempSync(join(tmpdir(), 'stagecraft-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `events-${(files += 1)}.db`);

describeEventStoreContract('sqlite', () => createSqliteEventStore({ path: nextFile() }));

describe('sqlite event store file', () => {
  it('keeps events and checkpoints across close and reopen', async () => {
    const path = nextFile();
    const stream = uniqueStream('durable');
    const events = newEvents(3);
    const first = createSqliteEventStore({ path });
    const appended = await first.appendToStream(stream, events);
    await first.checkpoints.save('durable', appended.position, { seen: 3 });
    await first.close();

    const reopened = createSqliteEventStore({ path });
    expect((await reopened.readStream(stream)).map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(await reopened.checkpoints.load('durable')).toEqual({ position: appended.position, state: { seen: 3 } });
    await reopened.close();
  });

  it('refuses a batch that repeats an earlier event of the stream out of place, appending nothing', async () => {
    const store = createSqliteEventStore({ path: nextFile() });
    const [a, b, c] = newEvents(3);
    await store.appendToStream('s', [a, b]);
    await expect(store.appendToStream('s', [c, a])).rejects.toBeInstanceOf(ConcurrencyError);
    expect((await store.readStream('s')).map((e) => e.id)).toEqual([a.id, b.id]);
    await store.close();
  });

  it('reports a file held locked past the busy timeout as UNAVAILABLE', async () => {
    const path = nextFile();
    const store = createSqliteEventStore({ path, busyTimeoutMs: 50 });
    const otherWriter = new DatabaseSync(path);
    otherWriter.exec('BEGIN IMMEDIATE');
    await expect(store.appendToStream('s', newEvents(1))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    otherWriter.exec('ROLLBACK');
    otherWriter.close();
    expect((await store.appendToStream('s', newEvents(1))).nextExpectedRevision).toBe(0n);
    await store.close();
  });

  it('checkpoints the write-ahead log from a background thread, and inline when asked to', async () => {
    const size = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    const payload = 'x'.repeat(2_000);
    // 1,000 events of 2 KB: far below the writer's own threshold, so only the background thread copies them.
    const fill = async (store: ReturnType<typeof createSqliteEventStore>) => {
      for (let i = 0; i < 100; i++)
        await store.appendToStream(
          uniqueStream('wal'),
          newEvents(10).map((e) => ({ ...e, data: { payload } })),
        );
    };
    const background = nextFile();
    const store = createSqliteEventStore({ path: background });
    const before = size(background);
    await fill(store);
    const deadline = Date.now() + 5_000;
    while (size(background) < before + 1_000_000 && Date.now() < deadline) await sleep(20);
    expect(size(background)).toBeGreaterThan(before + 1_000_000);
    await store.close();

    const inline = nextFile();
    const inlineStore = createSqliteEventStore({ path: inline, checkpoints: 'inline' });
    await fill(inlineStore);
    // SQLite's own checkpoint ran inside the appends that crossed 1,000 pages of log.
    expect(size(inline)).toBeGreaterThan(1_000_000);
    await inlineStore.close();
  });

  it('creates the parent directory of a new file when asked to', async () => {
    const store = createSqliteEventStore({ path: join(dir, 'nested', 'deeper', 'events.db'), createDirectory: true });
    await store.appendToStream(uniqueStream('nested'), newEvents(1));
    expect(await store.readAll()).toHaveLength(1);
    await store.close();
  });

  it('refuses a file in a missing directory otherwise, and creates nothing', () => {
    const missing = join(dir, 'missing', 'events.db');
    expect(() => createSqliteEventStore({ path: missing })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: `event store directory ${join(dir, 'missing')} does not exist` }),
    );
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });
});

describe('sqlite event store file that is damaged', () => {
  /** Random-looking bytes, the same every run. */
  const noise = (length: number) =>
    Buffer.concat(Array.from({ length: Math.ceil(length / 64) }, (_, i) => createHash('sha512').update(`noise ${i}`).digest())).subarray(
      0,
      length,
    );

  /** A store file with `bytes` written over it at `offset`; `null` offset: the middle page. */
  async function damaged(bytes: Buffer, offset: number | null): Promise<string> {
    const path = nextFile();
    const store = createSqliteEventStore({ path });
    for (let i = 0; i < 40; i += 1) await store.appendToStream(uniqueStream('filler'), newEvents(10));
    await store.close();
    const page = 4096;
    const fd = openSync(path, 'r+');
    writeSync(fd, bytes, 0, bytes.length, offset ?? Math.floor(statSync(path).size / 2 / page) * page);
    closeSync(fd);
    return path;
  }

  it('refuses at open, as CORRUPT naming the file, a page of random bytes in the middle and a header that is not SQLite', async () => {
    for (const path of [await damaged(noise(4096), null), await damaged(noise(100), 0)]) {
      const opened = (() => {
        try {
          return createSqliteEventStore({ path });
        } catch (error) {
          return error;
        }
      })();
      expect(opened).toMatchObject({ code: 'CORRUPT', message: expect.stringContaining(`at ${path}: restore it from a backup`) });
    }
  });
});

describe('sqlite event store shared by two OS processes', () => {
  it("sees a child process's appends live and lets exactly one process win each revision of a contested stream", async () => {
    const path = nextFile();
    const store = createSqliteEventStore({ path });
    const subscription = store.subscribeToAll({ fromPosition: 'start' });
    const iterator = subscription[Symbol.asyncIterator]();
    const [raceStream, parentStream, childStream] = [uniqueStream('contested'), uniqueStream('parent'), uniqueStream('child')];
    const [slots, scriptedSlots] = [200, 100];

    const child = spawn(
      process.execPath,
      [join(__dirname, 'cross-process-appender.cjs'), path, childStream, raceStream, String(slots), String(scriptedSlots)],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        if (lines.includes('ready')) resolve();
      }),
    );
    // A failing assertion must not leave the child behind holding the test run open.
    try {
      await Promise.race([ready, exited.then((code) => Promise.reject(new Error(`child exited with ${code} before it was ready`)))]);
      const total = slots + 2 * slots;
      // Consumed while both processes append: the child's events can only arrive through the poll.
      const delivering = collect(iterator, total, 30_000);
      child.stdin.end('go\n');
      const parent = await raceForSlots(store, {
        ownStream: parentStream,
        raceStream,
        slots,
        scriptedSlots,
        side: 'parent',
        newId: randomUUID,
      });
      expect(await exited).toBe(0);
      const childResult = JSON.parse(lines[lines.length - 1]) as RaceResult;
      const scripted = (won: number[]) => won.filter((slot) => slot < scriptedSlots);
      expect(scripted(parent.won)).toEqual(Array.from({ length: scriptedSlots / 2 }, (_, i) => 2 * i));
      expect(scripted(childResult.won)).toEqual(Array.from({ length: scriptedSlots / 2 }, (_, i) => 2 * i + 1));

      const allSlots = Array.from({ length: slots }, (_, i) => i);
      expect([...parent.won, ...childResult.won].sort((a, b) => a - b)).toEqual(allSlots);
      expect(parent.conflicts + childResult.conflicts).toBe(slots);
      const contested = await store.readStream(raceStream);
      const winnerId = (slot: number) => (parent.won.includes(slot) ? parent.raceIds[slot] : childResult.raceIds[slot]);
      expect(contested.map((e) => e.id)).toEqual(allSlots.map(winnerId));
      // Each process links onto heads the other wrote: one chain all the same.
      expect(verifyStreamChain(contested)).toMatchObject({ chained: slots, breaks: [] });

      const delivered = await delivering;
      await subscription.close();
      const log = await store.readAll();
      expect(log).toHaveLength(total);
      expect(await verifyLogChain(store)).toMatchObject({ chained: total, unchained: 0, breaks: [] });
      expect(delivered.map((e) => e.id)).toEqual(log.map((e) => e.id));
      expectStrictlyIncreasing(delivered.map((e) => e.position));
      expect(delivered.filter((e) => e.streamId === childStream).map((e) => e.id)).toEqual(childResult.ownIds);
    } finally {
      if (child.exitCode === null) child.kill();
      await store.close();
    }
  }, 60_000);
});
