import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScrubber } from '@stagecraft/sandbox';
import { ToolContext } from './context';
import { executeTool } from './registry';

/** What the model read of a file is scrubbed; writing that back must not replace the user's secret. */
const ENV = 'NAME=app\nDATABASE_URL=postgres://admin:hunter2secret@db/app\n';

let root: string;
let context: ToolContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-redactions-')));
  context = { root, allowedCommands: [], progress: () => undefined };
  writeFileSync(join(root, '.env'), ENV);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const scrubbedRead = async () => createScrubber({})((await executeTool('read_file', { path: '.env' }, context)).output);

describe('a write of what the model read, scrubbed', () => {
  it('write_file is refused, and the secret stays', async () => {
    const read = await scrubbedRead();
    expect(read).toContain('[redacted:password]');
    const result = await executeTool('write_file', { path: '.env', content: read.replace('NAME=app', 'NAME=renamed') }, context);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/^tool_error: REDACTED_CONTENT/);
    expect(readFileSync(join(root, '.env'), 'utf8')).toBe(ENV);
  });

  it('apply_patch adding a redacted line is refused; a hunk that leaves that line alone applies', async () => {
    // Written as it was read, the secret's line does not even match the file: the patch is rejected.
    const asRead =
      '--- a/.env\n+++ b/.env\n@@ -2 +2 @@\n-DATABASE_URL=postgres://admin:[redacted:password]@db/app\n+DATABASE_URL=postgres://admin:[redacted:password]@db/app2\n';
    expect((await executeTool('apply_patch', { patch: asRead }, context)).output).toMatch(/^tool_error: PATCH_REJECTED/);
    // A line that matches, replaced by one holding a placeholder, is refused by the redaction check.
    const bad = '--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-NAME=app\n+NAME=[redacted:password]\n';
    expect((await executeTool('apply_patch', { patch: bad }, context)).output).toMatch(/^tool_error: REDACTED_CONTENT/);
    const added = '--- /dev/null\n+++ b/copy.env\n@@ -0,0 +1 @@\n+TOKEN=[redacted:openai-key]\n';
    expect((await executeTool('apply_patch', { patch: added }, context)).output).toMatch(/^tool_error: REDACTED_CONTENT/);
    const good = '--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-NAME=app\n+NAME=renamed\n';
    expect((await executeTool('apply_patch', { patch: good }, context)).ok).toBe(true);
    expect(readFileSync(join(root, '.env'), 'utf8')).toBe(ENV.replace('NAME=app', 'NAME=renamed'));
  });

  it('a file that already holds placeholders (docs about them) may be rewritten with as many', async () => {
    writeFileSync(join(root, 'SECURITY.md'), 'Secrets show as [redacted:NAME].\n');
    const result = await executeTool('write_file', { path: 'SECURITY.md', content: 'Secrets are shown as [redacted:NAME].\n' }, context);
    expect(result.ok).toBe(true);
  });
});
