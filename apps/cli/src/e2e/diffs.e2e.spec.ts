import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedEvent, FileChange, streams } from '@stagecraft/contracts';
import { subscribeRunEvents } from '@stagecraft/messaging';
import { ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, REPO_ROOT, macroReasoning, microReasoning, runCli, toolResultsIn } from '@stagecraft/testing';
import { ScriptedDeployment, distributedDeployment, embeddedDeployment } from './scripted-deployments';
import { runToEnd } from './embedded-system';

/**
 * Diffs everywhere and streaming (decision 0060): a run that patches README.md and writes NOTES.md, as the CLI shows
 * it (each write as a diff, a closing summary, `--json` with changedFiles/usage and `--stream` deltas,
 * `runs show --diffs`, the whole patch before an approval), and as the feed carries it in both deployments.
 */
const OLD_LINE = "A tiny library for converting and summarising temperature readings. Stagecraft's README runs";
const NEW_LINE = "A tiny library for converting, summarising and charting temperature readings. Stagecraft's README runs";
const PATCH = `--- a/README.md\n+++ b/README.md\n@@ -1,4 +1,4 @@\n # temperature-tools\n \n-${OLD_LINE}\n+${NEW_LINE}\n its first conversation against this folder.\n`;
const NOTES = 'Notes on the sample project.\nIt converts temperatures.\n';
const ANSWER = 'Patched the README and wrote NOTES.md.';

function script(request: { stage?: string; body: { messages?: { role: string }[] } }): ScriptedReply {
  const done = toolResultsIn(request.body);
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will patch the README, then write notes.` };
    case 'act':
    case 'tool_followup':
      if (done === 0)
        return {
          content: microReasoning('patch README.md'),
          toolCalls: [{ id: 'call_patch', name: 'apply_patch', arguments: { patch: PATCH } }],
        };
      if (done === 1)
        return {
          content: microReasoning('write NOTES.md'),
          toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'NOTES.md', content: NOTES } }],
        };
      return { content: `${microReasoning('finish', 'DONE')}\n${ANSWER}` };
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nThe README is patched and the notes are written.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

const README_CHANGE = { path: 'README.md', kind: 'modified', added: 1, removed: 1 };
const NOTES_CHANGE = { path: 'NOTES.md', kind: 'created', added: 2, removed: 0 };
type Completed = Extract<FeedEvent, { type: 'ToolCallCompleted' }>;
const summaryOf = ({ path, kind, added, removed }: FileChange) => ({ path, kind, added, removed });

let server: ScriptedModelServer;
let dir: string;

beforeAll(async () => {
  server = await startScriptedModelServer({ script });
  dir = mkdtempSync(join(tmpdir(), 'stagecraft-diffs-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const freshProject = (name: string) => {
  const project = join(dir, name);
  cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
  return project;
};

describe('stagecraft chat shows every write as a diff, embedded, without a terminal', () => {
  const env = () => ({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: server.url, STAGECRAFT_MODEL: 'scripted', NATS_URL: '', NO_COLOR: '' });
  const chat = (project: string, store: string, ...flags: string[]) =>
    runCli(['chat', 'Patch the README and write notes', '--root', project, '--reasoning', '--store', store, ...flags], env(), 90_000);

  it('prints each write as a plain unified diff, then the answer and a closing summary of the changed files and tokens', async () => {
    const project = freshProject('plain');
    const { code, stdout, stderr } = await chat(project, `sqlite:${join(dir, 'plain.db')}`);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe(NOTES);
    // Not a terminal: no colour, no spinner, nothing but text.
    expect(stdout).not.toContain('\x1b');
    expect(stdout).toContain('  ⚙ apply_patch README.md\n');
    expect(stdout).toContain(
      [
        '  ✎ README.md +1 −1',
        '    --- a/README.md',
        '    +++ b/README.md',
        '    @@ -1,6 +1,6 @@',
        '     # temperature-tools',
        '     ',
        `    -${OLD_LINE}`,
        `    +${NEW_LINE}`,
      ].join('\n'),
    );
    expect(stdout).toContain(
      '  ✎ NOTES.md +2 −0 (created)\n    --- /dev/null\n    +++ b/NOTES.md\n    @@ -0,0 +1,2 @@\n    +Notes on the sample project.\n',
    );
    expect(stdout).toContain(`\n${ANSWER}\n`);
    const closing = stdout.trim().split('\n').slice(-4);
    expect(closing.slice(0, 3)).toEqual(['changed 2 files:', '  README.md +1 −1', '  NOTES.md +2 −0 (created)']);
    expect(closing[3]).toMatch(/^tokens: [1-9]\d* prompt \(\d+ cached\), [1-9]\d* completion · cost /);
  });

  it('--json gives changedFiles and usage, the feed carries each diff, and --stream adds the visible text as deltas', async () => {
    const project = freshProject('json');
    const store = `sqlite:${join(dir, 'json.db')}`;
    const { code, stdout } = await chat(project, store, '--json', '--stream');
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const result = lines.at(-1) as Record<string, unknown> & { runId: string; answer: string };
    expect(result.changedFiles).toEqual([README_CHANGE, NOTES_CHANGE]);
    expect(result.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      cachedTokens: expect.any(Number),
      cost: expect.objectContaining({ currency: 'USD' }),
    });
    expect((result.usage as { inputTokens: number }).inputTokens).toBeGreaterThan(0);

    const completed = lines.filter((l) => l['type'] === 'ToolCallCompleted') as unknown as Completed[];
    expect(completed.map((e) => (e.data.changes ?? []).map(summaryOf))).toEqual([[README_CHANGE], [NOTES_CHANGE]]);
    expect(completed[0].data.changes?.[0].diff).toContain(`-${OLD_LINE}\n+${NEW_LINE}\n`);

    const deltas = lines.filter((l) => l['type'] === 'delta') as { text: string; stage: string; requestId: string }[];
    expect(deltas.length).toBeGreaterThan(0);
    // Deltas come before the result, and none of them is reasoning.
    expect(lines.findIndex((l) => l['type'] === 'delta')).toBeLessThan(lines.length - 1);
    expect(deltas.some((d) => d.text.includes('ide_reasoning') || d.text.includes('plan_delta'))).toBe(false);
    const byRequest = new Map<string, string>();
    for (const d of deltas) byRequest.set(d.requestId, (byRequest.get(d.requestId) ?? '') + d.text);
    const answered = [...byRequest.entries()].find(([, text]) => text.trim() === result.answer);
    expect(answered).toBeDefined();
    expect(deltas.find((d) => d.requestId === answered![0])?.stage).toMatch(/^(act|tool_followup)$/);

    // runs show: every diff in full with --diffs, the messages and the final answer.
    const shown = await runCli(['runs', 'show', result.runId, '--diffs', '--store', store], env());
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`-${OLD_LINE}`);
    expect(shown.stdout).toContain('+++ b/NOTES.md');
    expect(shown.stdout).toMatch(/MessageAppended\s+user: Patch the README and write notes/);
    expect(shown.stdout.trim().split('\n').slice(-2)).toEqual(['answer:', ANSWER]);
  });

  it('shows the whole patch before it waits for approval, and the diff against the disk of a write that waits', async () => {
    const project = freshProject('approve');
    const store = `sqlite:${join(dir, 'approve.db')}`;
    const waiting = await chat(project, store, '--approve', 'writes');
    expect({ code: waiting.code, stderr: waiting.stderr }).toEqual({ code: 4, stderr: '' });
    // Every line of the patch, however long: nothing is cut at 60 or 80 characters.
    expect(waiting.stdout).toContain(
      `  proposed patch:\n${PATCH.trimEnd()
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}\n`,
    );
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toContain(OLD_LINE);
    const runId = /stagecraft approve (\S+)/.exec(waiting.stdout)?.[1] ?? '';

    const patched = await runCli(['approve', runId, '--root', project, '--store', store], env(), 90_000);
    expect({ code: patched.code, stderr: patched.stderr }).toEqual({ code: 4, stderr: '' });
    expect(patched.stdout).toContain(`    -${OLD_LINE}\n    +${NEW_LINE}`);
    expect(patched.stdout).toContain('  proposed change:\n  ✎ NOTES.md +2 −0 (created)\n    --- /dev/null\n    +++ b/NOTES.md\n');

    const written = await runCli(['approve', runId, '--root', project, '--store', store], env(), 90_000);
    expect(written.code).toBe(0);
    expect(written.stdout).toContain('  ✎ NOTES.md +2 −0 (created)');
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe(NOTES);
  });
});

function feedCarriesChanges(name: string, start: (dir: string) => Promise<ScriptedDeployment>) {
  describe(`${name}: the feed and the log carry the changes of each write`, () => {
    let d: ScriptedDeployment;
    let at: string;
    beforeAll(async () => {
      at = mkdtempSync(join(dir, `${name}-`));
      d = await start(at);
    }, 120_000);
    afterAll(() => d?.close());

    it('ToolCallCompleted has each diff, on the live feed and in the stored run', async () => {
      // Inside the deployment's directory: a distributed tool service touches only the roots it is given.
      const project = join(at, 'project');
      cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
      const runId = `diffs-${name}`;
      const seen: FeedEvent[] = [];
      const subscription = subscribeRunEvents(d.bus, d.prefix, runId, (e) => seen.push(e));
      const { end } = await runToEnd(
        d,
        { runId, message: 'Patch the README and write notes', userMode: 'agent', reasoningEnabled: true, projectRoot: project },
        120_000,
      );
      subscription.unsubscribe();
      expect(end.type).toBe('RunCompleted');
      const live = seen.filter((e) => e.type === 'ToolCallCompleted') as Completed[];
      expect(live.map((e) => (e.data.changes ?? []).map(summaryOf))).toEqual([[README_CHANGE], [NOTES_CHANGE]]);
      const stored = (await d.store.readStream(streams.run(runId))).filter((e) => e.type === 'ToolCallCompleted');
      expect(stored.map((e) => (e.data as { changes?: FileChange[] }).changes)).toEqual(live.map((e) => e.data.changes));
    }, 180_000);
  });
}

feedCarriesChanges('embedded', (at) => embeddedDeployment(at, server.url));
feedCarriesChanges('distributed', (at) => distributedDeployment(at, server.url, 'diffs'));

/** Runs the CLI on a pseudo-terminal (util-linux `script`), answering `y` to each approval question it asks. */
function runOnTerminal(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string; asked: number }> {
  const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs'), ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...process.env, ...env, COLUMNS: '120' }, stdio: 'pipe' });
    let output = '';
    let asked = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const questions = output.split('[y/N/reason]').length - 1;
      for (; asked < questions; asked += 1) child.stdin.write('y\n');
    });
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no end on the terminal:\n${output}`))), 120_000);
    child.once('exit', (code) => (clearTimeout(timer), resolve({ code, output: output.replace(/\r/g, ''), asked })));
  });
}

describe('stagecraft chat on a terminal', () => {
  const env = () => ({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: server.url, STAGECRAFT_MODEL: 'scripted', NATS_URL: '', NO_COLOR: '' });
  const args = (project: string, store: string) => [
    'chat',
    'Patch the README and write notes',
    '--root',
    project,
    '--reasoning',
    '--store',
    store,
  ];

  it('streams the answer into the scrollback under its stage, never the reasoning, and colours each diff', async () => {
    const project = freshProject('terminal');
    const { code, output } = await runOnTerminal(args(project, `sqlite:${join(dir, 'terminal.db')}`), env());
    expect(code).toBe(0);
    expect(output).toContain('\x1b[2m── warmup ──\x1b[22m\nI will patch the README, then write notes.');
    expect(output).toContain(`\x1b[2m── tool_followup ──\x1b[22m\n`);
    expect(output).not.toContain('<ide_reasoning>');
    // Streamed once, not printed again at the end.
    expect(output.split(ANSWER)).toHaveLength(2);
    expect(output).toContain(`\x1b[31m-${OLD_LINE}\x1b[39m`);
    expect(output).toContain('\x1b[32m+Notes on the sample project.\x1b[39m');
    expect(output).toContain('\x1b[36m@@ -0,0 +1,2 @@\x1b[39m');
  });

  it('asks about each write after showing all of it, and with NO_COLOR set shows it without colour', async () => {
    const project = freshProject('terminal-approve');
    const { code, output, asked } = await runOnTerminal(
      [...args(project, `sqlite:${join(dir, 'terminal-approve.db')}`), '--approve', 'writes'],
      { ...env(), NO_COLOR: '1' },
    );
    expect({ code, asked }).toEqual({ code: 0, asked: 2 });
    const [beforePatch] = output.split('Allow apply_patch');
    expect(beforePatch).toContain(
      `proposed patch:\n${PATCH.trimEnd()
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}\n`,
    );
    const [, beforeWrite] = output.split('Allow apply_patch');
    expect(beforeWrite.split('Allow write_file')[0]).toContain('proposed change:\n  ✎ NOTES.md +2 −0 (created)\n');
    expect(output).not.toMatch(/\x1b\[3\dm/);
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe(NOTES);
  });
});
