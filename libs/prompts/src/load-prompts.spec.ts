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

describe('loadPromptDirectory and the prompt guard', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-prompts-guard-'));
    mkdirSync(join(dir, 'agent'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a directory whose prompt suggests switching mode, naming the file and line', () => {
    writeFileSync(join(dir, 'agent', 'act.md'), '## Stage: act\n\nDo the work.\nIf you only need to talk, switch to chat mode.\n');
    writeFileSync(join(dir, 'agent', 'warmup.md'), 'Plan first.\r\nReasoning is optional here.\r\n');
    let thrown: unknown;
    try {
      loadPromptDirectory(dir);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/^prompt guard: agent\/act\.md line 4: suggests switching mode \("switch to chat mode"\) \(and 1 more\)/),
      issues: [
        { path: ['agent/act.md', 4], code: 'mode_switch', message: expect.stringContaining('line 4') },
        { path: ['agent/warmup.md', 2], code: 'optional_reasoning', message: expect.stringContaining('leaves reasoning to the model') },
      ],
    });
  });

  it('loads the same directory once the text is sound', () => {
    writeFileSync(join(dir, 'agent', 'act.md'), '## Stage: act\n\nDo the work with the tools of this step.\n');
    expect(loadPromptDirectory(dir).ids()).toEqual(['agent/act']);
  });
});
