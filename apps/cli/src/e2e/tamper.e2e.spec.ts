import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '@stagecraft/testing';

/**
 * A store the CLI wrote, tampered with by hand the way someone with the file would (docs/decisions/0037):
 * each test works on its own copy, and the CLI must name what was changed, or refuse a damaged file.
 */
describe('a tampered or damaged event store, seen by audit, replay --verify, runs replay, runs list and chat', () => {
  let dir: string;
  let project: string;
  let original: string;
  let runId: string;
  const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-tamper-'));
    project = join(dir, 'sample-project');
    original = join(dir, 'original.db');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const { code, stdout } = await runCli(
      ['chat', 'Summarise this project in NOTES.md', '--root', project, '--mode', 'agent', '--json', '--store', `sqlite:${original}`],
      env,
      60_000,
    );
    expect(code).toBe(0);
    runId = (JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { runId: string }).runId;
    // The CLI has exited: its write-ahead log is folded into the file, which is all a copy needs.
    expect(existsSync(`${original}-wal`)).toBe(false);
  }, 90_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let copies = 0;
  /** A fresh copy of the store, changed by `edit` through SQLite itself. */
  function tampered(edit: (db: DatabaseSync) => void): string {
    const path = join(dir, `copy-${(copies += 1)}.db`);
    cpSync(original, path);
    const db = new DatabaseSync(path);
    edit(db);
    db.close();
    return path;
  }
  const cli = (args: string[], path: string) => runCli([...args, '--store', `sqlite:${path}`], env, 60_000);

  /** The run's read_file call: its stream, and the run revision of its ToolCallCompleted. */
  function readFileCall(db: DatabaseSync): { stream: string; completed: number } {
    const { stream_id: stream } = db
      .prepare(
        "SELECT stream_id FROM events WHERE type = 'ToolExecutionFinished' AND json_extract(data, '$.tool') = 'read_file' AND stream_id LIKE ?",
      )
      .get(`toolcall-${runId}.m%`) as { stream_id: string };
    const { revision } = db
      .prepare(
        "SELECT revision FROM events WHERE stream_id = ? AND type = 'ToolCallCompleted' AND json_extract(data, '$.tool') = 'read_file'",
      )
      .get(`run-${runId}`) as { revision: number };
    return { stream, completed: revision };
  }

  it('audits the untouched store clean, its chain intact', async () => {
    const audited = await cli(['audit'], original);
    expect(audited.code).toBe(0);
    expect(audited.stdout).toMatch(/^hash chain: \d+ event\(s\) in \d+ stream\(s\) verified: intact$/m);
  }, 60_000);

  it('names a tool output edited consistently in both places it is stored', async () => {
    let call = { stream: '', completed: 0 };
    const path = tampered((db) => {
      call = readFileCall(db);
      const edit = (stream: string, type: string) =>
        db
          .prepare(
            `UPDATE events SET data = replace(data, 'A tiny library', 'A huge library')
             WHERE stream_id = ? AND type = ? AND instr(data, 'A tiny library') > 0 AND coalesce(json_extract(data, '$.role'), 'tool') = 'tool'
               AND coalesce(json_extract(data, '$.tool'), 'read_file') = 'read_file'`,
          )
          .run(stream, type).changes;
      // The tool's own record and the run's record of the call; the tool message the model was sent refers
      // to the run's record and holds no copy (docs/decisions/0049). The write's record, whose diff may quote
      // the same words, is left alone.
      const changed = [
        edit(call.stream, 'ToolExecutionFinished'),
        edit(`run-${runId}`, 'ToolCallCompleted'),
        edit(`run-${runId}`, 'MessageAppended'),
      ];
      expect(changed.map(Number)).toEqual([1, 1, 0]);
    });
    const inToolCall = `stream ${call.stream}: revision 1 (ToolExecutionFinished) breaks the hash chain: its content was changed after it was appended; expected `;
    const inRun = `stream run-${runId}: revision ${call.completed} (ToolCallCompleted) breaks the hash chain: its content was changed after it was appended; expected `;

    const audited = await cli(['audit'], path);
    expect(audited.code).toBe(1);
    expect(audited.stdout).toContain(inToolCall);
    expect(audited.stdout).toContain(inRun);
    expect(audited.stdout).toMatch(/: 2 broken stream\(s\)$/m);

    const verified = await cli(['replay', '--verify'], path);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain(inToolCall);
    expect(verified.stdout).toContain(inRun);

    const replayed = await cli(['runs', 'replay', runId], path);
    expect(replayed.code).toBe(1);
    expect(replayed.stdout).toContain(`run ${runId}: ${inRun}`);
  }, 120_000);

  it('names a deleted ToolExecutionStarted, and two run events swapped', async () => {
    let call = { stream: '', completed: 0 };
    const deleted = tampered((db) => {
      call = readFileCall(db);
      expect(Number(db.prepare("DELETE FROM events WHERE stream_id = ? AND type = 'ToolExecutionStarted'").run(call.stream).changes)).toBe(
        1,
      );
    });
    const audited = await cli(['audit'], deleted);
    expect(audited.code).toBe(1);
    expect(audited.stdout).toContain(
      `stream ${call.stream}: revision 1 (ToolExecutionFinished) breaks the hash chain: a revision is missing (an event was deleted); expected revision 0, found revision 1`,
    );
    const verified = await cli(['replay', '--verify'], deleted);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain(`stream ${call.stream}: revision 1 (ToolExecutionFinished) breaks the hash chain`);

    const swapped = tampered((db) => {
      const stream = `run-${runId}`;
      const move = db.prepare('UPDATE events SET revision = ? WHERE stream_id = ? AND revision = ?');
      move.run(-1, stream, 1);
      move.run(1, stream, 2);
      move.run(2, stream, -1);
    });
    const reordered = await cli(['audit', '--run', runId], swapped);
    expect(reordered.code).toBe(1);
    expect(reordered.stdout).toMatch(
      new RegExp(`^stream run-${runId}: revision 1 \\(\\w+\\) breaks the hash chain: it does not follow the event before it`, 'm'),
    );
  }, 120_000);

  it('refuses a file with random bytes in its middle at open, with exit 5, for runs list, chat and audit, changing nothing', async () => {
    const path = join(dir, 'damaged.db');
    cpSync(original, path);
    // One page's worth, on a page boundary in the middle of the file: the b-tree page there is garbage.
    const page = 4096;
    const offset = Math.floor(statSync(path).size / 2 / page) * page;
    const fd = openSync(path, 'r+');
    writeSync(
      fd,
      createHash('sha512')
        .update('noise')
        .digest()
        .toString('hex')
        .repeat(page / 128)
        .slice(0, page),
      offset,
    );
    closeSync(fd);
    const before = createHash('sha256').update(readFileSync(path)).digest('hex');

    for (const args of [['runs', 'list'], ['chat', 'hello', '--root', project], ['audit']]) {
      const result = await cli(args, path);
      expect({ args, code: result.code }).toEqual({ args, code: 5 });
      expect(result.stderr).toContain(`stagecraft: event store file is damaged (`);
      expect(result.stderr).toContain(`at ${path}: restore it from a backup`);
    }
    expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(before);
  }, 120_000);
});
