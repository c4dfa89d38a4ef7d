import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPromptDirectory } from './load-prompts';

describe('loadPromptDirectory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-prompts-'));
    mkdirSync(join(dir, 'agent', 'deep'), { recursive: true });
    mkdirSync(join(dir, 'base'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads every markdown file under the directory with its path as id', () => {
    writeFileSync(join(dir, 'base', 'system.md'), 'You are Stagecraft.\n');
    writeFileSync(join(dir, 'agent', 'deep', 'nested_prompt.md'), 'Root {{project_root}}');
    writeFileSync(join(dir, 'agent', 'notes.txt'), 'not a prompt');
    const repo = loadPromptDirectory(dir);
    expect(repo.ids()).toEqual(['agent/deep/nested_prompt', 'base/system']);
    expect(repo.render('agent/deep/nested_prompt', { project_root: '/r' })).toBe('Root /r');
  });

  it('fails the load when a file uses a variable that is not allowed, naming prompt and variable', () => {
    writeFileSync(join(dir, 'base', 'system.md'), 'Hello {{username}}');
    expect(() => loadPromptDirectory(dir)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: expect.stringMatching(/"base\/system".*\{\{username\}\}/) }),
    );
  });
});
