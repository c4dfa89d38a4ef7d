import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';
import { openEventStore } from '@stagecraft/event-store';
import { formatIndexSummary, indexProjectCommand } from './index-project';

const FIXTURE = join(__dirname, '..', '..', '..', '..', 'libs', 'index', 'fixtures', 'python');

let dir: string;
let project: string;
let store: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-index-cli-')));
  project = join(dir, 'project');
  cpSync(FIXTURE, project, { recursive: true });
  store = `sqlite:${join(dir, 'events.db')}`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const updates = async () => {
  const events = openEventStore(store);
  try {
    return (await events.readAll())
      .filter((e) => e.type === 'IndexUpdated')
      .map((e) => e.data as { files: { path: string }[]; removed: string[] });
  } finally {
    await events.close();
  }
};

describe('stagecraft index', () => {
  it('indexes the root once, records nothing when nothing changed, then only what changed', async () => {
    const first = await indexProjectCommand(project, store);
    expect(first).toMatchObject({ root: project, files: 1, changed: 1, removed: 0, symbols: 4, entryPoints: 2 });
    expect(formatIndexSummary(first)).toMatch(
      /^indexed .*: 1 file \(1 new or changed, 0 removed\), 4 symbols, 2 entry points in \d+ ms\n$/,
    );
    expect(await indexProjectCommand(project, store)).toMatchObject({ changed: 0, removed: 0 });
    writeFileSync(join(project, 'tool.py'), 'def tool():\n    pass\n');
    rmSync(join(project, 'app', '__main__.py'));
    expect(await indexProjectCommand(project, store)).toMatchObject({ files: 1, changed: 1, removed: 1, symbols: 1 });
    expect((await updates()).map((u) => [u.files.map((f) => f.path), u.removed])).toEqual([
      [['app/__main__.py'], []],
      [['tool.py'], ['app/__main__.py']],
    ]);
  });

  it('refuses a root that is not a directory, and records nothing', async () => {
    const missing = indexProjectCommand(join(dir, 'missing'), store);
    await expect(missing).rejects.toThrow(StagecraftError);
    await expect(indexProjectCommand(join(project, 'app', '__main__.py'), store)).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await updates()).toEqual([]);
  });
});
