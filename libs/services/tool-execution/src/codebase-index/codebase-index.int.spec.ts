import 'reflect-metadata';
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolName, indexEvents, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import type { EventStore } from '@stagecraft/event-store';
import { foldIndex, serializeIndex } from '@stagecraft/index';
import { Host, startHost } from '@stagecraft/service-shell';
import { indexProjectKey } from '@stagecraft/tools';
import { codebaseIndexView, toolExecutionService } from '../index';

const FIXTURE = join(__dirname, '..', '..', '..', '..', 'index', 'fixtures', 'typescript');
const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };

let dir: string;
let project: string;
let host: Host;
let store: EventStore;

beforeEach(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-index-tools-')));
  project = join(dir, 'project');
  cpSync(FIXTURE, project, { recursive: true });
  host = await startHost({ definitions: [toolExecutionService], transport: 'inproc', store: `sqlite:${join(dir, 'events.db')}`, config });
  store = host.ports.store as EventStore;
});
afterEach(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

let calls = 0;
const call = (tool: ToolName, args: Record<string, unknown>, overrides: Record<string, unknown> = {}) => ({
  callId: `index-call-${++calls}`,
  runId: 'run-1',
  tool,
  arguments: args,
  stage: 'act' as const,
  userMode: 'agent' as const,
  reasoningEnabled: true,
  projectRoot: project,
  ...overrides,
});
const execute = (request: ReturnType<typeof call>) => host.ports.requester.request('tool.execute', request);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => ({ code: 'NONE', message: '' }),
    (e: { code: string; message: string }) => e,
  );
const indexUpdates = async () => readEvents(store, streams.index(indexProjectKey(project)), indexEvents);

describe('the index tools through the tool service', () => {
  it('find_symbol, list_entry_points and search_index answer in act and in QA; the first use indexes the root once', async () => {
    const found = await execute(call('find_symbol', { name: 'Circle' }));
    expect(found).toMatchObject({ ok: true, output: 'src/main.ts:10-16: class Circle [typescript]' });
    const qa = await execute(call('find_symbol', { name: 'gree' }, { stage: 'qa_review' }));
    expect(qa.output).toBe('src/main.ts:2-4: function greet [typescript, prefix] — Greets a person by name.');
    const entries = await execute(call('list_entry_points', {}, { stage: 'tool_followup' }));
    expect(entries.output.split('\n')).toEqual([
      'bin demo → bin/demo.js (package.json)',
      'main @demo/ts-app → dist/index.js (package.json)',
      'service_entry src/main.ts (src/main.ts)',
      'script build → tsc -b (package.json)',
      'script test → jest (package.json)',
    ]);
    const search = await execute(call('search_index', { query: 'greets person' }, { stage: 'qa_review' }));
    expect(search.output).toBe('src/main.ts:2-4: function greet — Greets a person by name.');
    const updates = await indexUpdates();
    expect(updates).toHaveLength(1);
    expect(updates[0].data.files.map((f) => f.path)).toEqual(['.gitignore', 'package.json', 'src/main.ts']);
  });

  it('re-indexes only the file a write_file or apply_patch changed', async () => {
    await execute(call('find_symbol', { name: 'greet' }));
    await execute(call('write_file', { path: 'src/extra.ts', content: 'export function addedLater(): number {\n  return 1;\n}\n' }));
    const patch = [
      '--- a/src/main.ts',
      '+++ b/src/main.ts',
      '@@ -1,2 +1,2 @@',
      ' /** Greets a person by name. */',
      '-export function greet(name: string): string {',
      '+export function welcome(name: string): string {',
      '',
    ].join('\n');
    expect(await execute(call('apply_patch', { patch }))).toMatchObject({ ok: true });
    const updates = await indexUpdates();
    expect(updates.map((u) => [u.data.files.map((f) => f.path), u.data.removed])).toEqual([
      [['.gitignore', 'package.json', 'src/main.ts'], []],
      [['src/extra.ts'], []],
      [['src/main.ts'], []],
    ]);
    expect((await execute(call('find_symbol', { name: 'addedLater' }))).output).toBe('src/extra.ts:1-3: function addedLater [typescript]');
    expect((await execute(call('find_symbol', { name: 'welcome' }))).output).toMatch(/^src\/main\.ts:2-4: function welcome/);
    expect((await execute(call('find_symbol', { name: 'greet', kind: 'function' }))).output).toMatch(/^no symbol matches/);
  });

  it('replay of the index stream rebuilds the view byte for byte', async () => {
    await execute(call('find_symbol', { name: 'greet' }));
    await execute(call('write_file', { path: 'src/more.ts', content: 'export class More {}\n' }));
    const live = serializeIndex(await codebaseIndexView(store, project));
    expect(serializeIndex(foldIndex(await indexUpdates()))).toBe(live);
    expect(live).toContain('"name":"More"');
  });

  it('refuses the index tools where the policy grants no tools, and indexes nothing', async () => {
    for (const tool of ['find_symbol', 'list_entry_points', 'search_index'] as const) {
      const args = tool === 'find_symbol' ? { name: 'greet' } : tool === 'search_index' ? { query: 'greet' } : {};
      expect((await failure(execute(call(tool, args, { stage: 'delivery_check' })))).code).toBe('FORBIDDEN_TOOL');
      expect((await failure(execute(call(tool, args, { userMode: 'chat' })))).code).toBe('FORBIDDEN_TOOL');
      expect((await failure(execute(call(tool, args, { stage: 'warmup' })))).code).toBe('FORBIDDEN_TOOL');
    }
    expect(await indexUpdates()).toEqual([]);
  });

  it('index.map gives the layout and entry points, and refuses a root that is not a directory without recording anything', async () => {
    const { map, files } = await host.ports.requester.request('index.map', { projectRoot: project });
    expect(files).toBe(3);
    expect(map.split('\n')).toEqual([
      'Layout:',
      '- . (2 files)',
      '- src/ (1 file; typescript)',
      'Entry points:',
      '- bin demo → bin/demo.js (package.json)',
      '- main @demo/ts-app → dist/index.js (package.json)',
      '- service_entry src/main.ts (src/main.ts)',
      '- script build → tsc -b (package.json)',
      '- script test → jest (package.json)',
    ]);
    const missing = join(dir, 'missing');
    const error = await failure(host.ports.requester.request('index.map', { projectRoot: missing }));
    expect(error.code).not.toBe('NONE');
    expect(await readEvents(store, streams.index(indexProjectKey(missing)), indexEvents)).toEqual([]);
    expect(await indexUpdates()).toHaveLength(1);
  });

  it('answers bad arguments with a structured failure and changes nothing', async () => {
    const result = await execute(call('find_symbol', { name: '', kind: 'galaxy' }));
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/INVALID_ARGUMENTS/);
    expect(result.output).toMatch(/find_symbol \{name: string/);
    expect(await indexUpdates()).toEqual([]);
  });
});
