import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ALLOWED_COMMANDS, LIMITS, ToolContext } from '../context';
import { executeTool } from '../registry';

let root: string;
let progress: string[];
let context: ToolContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-run-')));
  progress = [];
  context = { root, allowedCommands: [...DEFAULT_ALLOWED_COMMANDS, 'stagecraft-no-such-binary'], progress: (m) => progress.push(m) };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const node = (script: string, extra: Record<string, unknown> = {}) =>
  executeTool('run_command', { command: 'node', args: ['-e', script], ...extra }, context);

describe('run_command', () => {
  it('runs in the project root and reports the exit code with stdout and stderr', async () => {
    const result = await node('console.log(process.cwd()); console.error("warned")');
    expect(result).toEqual({
      ok: true,
      truncated: false,
      output: `$ node -e "console.log(process.cwd()); console.error(\\"warned\\")"\nexit code: 0\n${root}\nwarned\n`,
    });
    expect(progress[0]).toMatch(/^started node \(pid \d+\)$/);
    expect(progress[1]).toBe('exit code: 0');
  });

  it('passes arguments without a shell', async () => {
    const result = await node('console.log(process.argv.slice(1).join("|"))', {
      args: ['-e', 'console.log(process.argv.slice(1).join("|"))', '$(touch pwned)', '; echo hi', '*'],
    });
    expect(result.output).toContain('$(touch pwned)|; echo hi|*');
    expect(() => readFileSync(join(root, 'pwned'))).toThrow();
  });

  it('fails with the exit code, the output and what to do next on a non-zero exit', async () => {
    const result = await node('console.log("before"); process.exit(3)');
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/^tool_error: COMMAND_FAILED\nproblem: 'node' exited with code 3\nretry: read the output/);
    expect(result.output).toContain('exit code: 3\nbefore\n');
  });

  it('refuses executables outside the allow-list, paths and shells', async () => {
    for (const command of ['sh', 'bash', '/bin/ls', './node', 'rm']) {
      const result = await executeTool('run_command', { command, args: ['-c', 'touch pwned'] }, context);
      expect(result.ok).toBe(false);
      expect(result.output).toContain('tool_error: COMMAND_NOT_ALLOWED');
      expect(result.output).toContain('use one of: node, npm, npx, git');
    }
    const custom = await executeTool('run_command', { command: 'node', args: ['-v'] }, { ...context, allowedCommands: ['git'] });
    expect(custom.output).toContain('tool_error: COMMAND_NOT_ALLOWED');
    expect(progress).toEqual([]);
  });

  it('says when an allowed command is not installed', async () => {
    const result = await executeTool('run_command', { command: 'stagecraft-no-such-binary' }, context);
    expect(result.output).toContain('tool_error: COMMAND_NOT_FOUND');
  });

  it('stops everything the command started at the timeout', async () => {
    // Inside the sandbox's PID namespace a pid means nothing on the host, so the grandchild leaves a
    // trace instead: a file that grows every 50 ms for as long as it lives.
    const beat = join(root, 'beat');
    const script = `require("child_process").spawn(process.execPath, ["-e", "setInterval(() => require('fs').appendFileSync('beat', '.'), 50)"], { stdio: "ignore" });
      setInterval(() => {}, 1000);`;
    const started = Date.now();
    const result = await node(script, { timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(LIMITS.commandKillGraceMs + 2000);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('tool_error: COMMAND_TIMEOUT');
    expect(result.output).toContain('killed after 500 ms (timeout)');
    const size = () => (existsSync(beat) ? statSync(beat).size : 0);
    const atReturn = size();
    expect(atReturn).toBeGreaterThan(0);
    await sleep(300);
    expect(size()).toBe(atReturn);
  });

  it('caps a flood of output, keeping its start and end', async () => {
    const result = await node('for (let i = 0; i < 20000; i++) console.log("line " + i)');
    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.output).toContain('line 0\n');
    expect(result.output).toContain('line 19999\n');
    expect(result.output).toMatch(/\[… \d+ bytes of output omitted …\]/);
    expect(Buffer.byteLength(result.output)).toBeLessThan(LIMITS.commandOutputBytes + 200);
  });

  it('refuses a timeout over the maximum', async () => {
    const result = await node('1', { timeoutMs: LIMITS.commandTimeoutMs + 1 });
    expect(result.output).toContain('tool_error: INVALID_ARGUMENTS');
    expect(result.output).toContain('timeoutMs');
  });
});
