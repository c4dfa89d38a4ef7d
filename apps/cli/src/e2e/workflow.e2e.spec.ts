import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '@stagecraft/testing';

/**
 * `stagecraft workflow start` as a newcomer runs it: embedded, no model key (the scripted agents answer),
 * on a copy of the sample project; with the after-planning gate and no terminal it stops (exit 4, waiting) and
 * `stagecraft approve` in another process lets it go on to the tickets' edits.
 */
describe('stagecraft workflow, embedded, without a model key', () => {
  let dir: string;
  const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
  const fresh = (name: string) => {
    const project = join(dir, name);
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    return project;
  };
  const ticketFiles = (project: string) => readdirSync(project).filter((f) => /^WORKFLOW_.*\.md$/.test(f));

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-workflow-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the three phases with live progress, makes the tickets’ edits and shows the tree', async () => {
    const project = fresh('all-phases');
    const store = `sqlite:${join(dir, 'all.db')}`;
    const { code, stdout, stderr } = await runCli(
      ['workflow', 'start', 'Document the converters', '--root', project, '--store', store],
      env,
      180_000,
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    for (const phase of ['discovery', 'planning', 'tickets'])
      expect(stdout).toMatch(new RegExp(`${phase} \\(round 1\\): 0 running, \\d+ done, 0 failed → ADVANCE`));
    expect(stdout).toContain('✔ completed');
    expect(ticketFiles(project).length).toBeGreaterThanOrEqual(2);
    const workflowId = /^workflow (\S+)$/m.exec(stdout)?.[1] ?? '';
    const shown = await runCli(['workflow', 'show', workflowId, '--store', store], env, 60_000);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`workflow ${workflowId} (phases) completed`);
    expect(shown.stdout).toMatch(/ticket-T1 \[agent, ticket-agent\] attempt 1 completed → run \S+/);
  }, 300_000);

  it('stops after planning for approval, and goes on to the edits once another process approves', async () => {
    const project = fresh('gated');
    const store = `sqlite:${join(dir, 'gated.db')}`;
    const waiting = await runCli(
      ['workflow', 'start', 'Document the converters', '--root', project, '--store', store, '--gate', 'after-planning'],
      env,
      180_000,
    );
    expect({ code: waiting.code, stderr: waiting.stderr }).toEqual({ code: 4, stderr: '' });
    expect(waiting.stdout).toContain('⏸ waiting for approval: start the tickets phase with');
    expect(waiting.stdout).not.toContain('tickets (round 1)');
    expect(ticketFiles(project)).toEqual([]);
    const workflowId = /answer with: stagecraft approve (\S+)/.exec(waiting.stdout)?.[1] ?? '';
    const approved = await runCli(['approve', workflowId, '--root', project, '--store', store], env, 180_000);
    expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: '' });
    expect(approved.stdout).toContain('✔ completed');
    expect(ticketFiles(project).length).toBeGreaterThanOrEqual(2);
    expect(existsSync(join(project, '.stagecraft', 'worktrees', workflowId))).toBe(false);
  }, 300_000);

  it('keeps the ticket copies of a denied merge and lists them in workflow show', async () => {
    const project = fresh('denied');
    const store = `sqlite:${join(dir, 'denied.db')}`;
    const waiting = await runCli(
      ['workflow', 'start', 'Document the converters', '--root', project, '--store', store, '--gate', 'before-merge'],
      env,
      180_000,
    );
    expect({ code: waiting.code, stderr: waiting.stderr }).toEqual({ code: 4, stderr: '' });
    expect(waiting.stdout).toContain('⏸ waiting for approval: merge the changes of');
    const workflowId = /answer with: stagecraft approve (\S+)/.exec(waiting.stdout)?.[1] ?? '';
    const denied = await runCli(
      ['approve', workflowId, '--deny', '--reason', 'not now', '--root', project, '--store', store],
      env,
      180_000,
    );
    expect({ code: denied.code, stderr: denied.stderr }).toEqual({ code: 0, stderr: '' });
    expect(ticketFiles(project)).toEqual([]);
    const shown = await runCli(['workflow', 'show', workflowId, '--store', store], env, 60_000);
    expect(shown.code).toBe(0);
    const copies = [...shown.stdout.matchAll(/^ {2}(ticket-T\d) \(ticket (T\d)\) refused: (\S+)$/gm)];
    expect(copies.map((m) => m[1])).toEqual(['ticket-T1', 'ticket-T2']);
    for (const [, , ticket, path] of copies) expect(readdirSync(path)).toContain(`WORKFLOW_${ticket}.md`);
  }, 300_000);

  it('cancels a waiting workflow from another process, once', async () => {
    const project = fresh('cancelled');
    const store = `sqlite:${join(dir, 'cancelled.db')}`;
    const waiting = await runCli(
      ['workflow', 'start', 'Document the converters', '--root', project, '--store', store, '--gate', 'after-planning'],
      env,
      180_000,
    );
    expect(waiting.code).toBe(4);
    const workflowId = /answer with: stagecraft approve (\S+)/.exec(waiting.stdout)?.[1] ?? '';
    const cancelled = await runCli(['workflow', 'cancel', workflowId, '--reason', 'wrong goal', '--store', store], env, 60_000);
    expect({ code: cancelled.code, stdout: cancelled.stdout, stderr: cancelled.stderr }).toEqual({
      code: 0,
      stdout: `workflow ${workflowId} cancelled\n`,
      stderr: '',
    });
    const shown = await runCli(['workflow', 'show', workflowId, '--store', store], env, 60_000);
    expect(shown.stdout).toContain(`workflow ${workflowId} (phases) cancelled`);
    expect(shown.stdout).toContain('summary: cancelled by cli: wrong goal');
    const again = await runCli(['workflow', 'cancel', workflowId, '--store', store], env, 60_000);
    expect({ code: again.code, stdout: again.stdout }).toEqual({
      code: 1,
      stdout: `workflow ${workflowId} had already ended (cancelled); nothing changed\n`,
    });
  }, 300_000);

  it('refuses a bad --phases value as a usage error, starting nothing', async () => {
    const project = fresh('bad');
    const { code, stderr } = await runCli(
      ['workflow', 'start', 'x', '--root', project, '--phases', 'planning,discovery,nope'],
      env,
      60_000,
    );
    expect(code).not.toBe(0);
    expect(stderr).toContain('a comma-separated list of discovery, planning, tickets');
    expect(existsSync(join(project, '.stagecraft'))).toBe(false);
  }, 60_000);

  it('shows each step’s title and prompt as workflow run walks it, never its agentRole', async () => {
    const project = fresh('steps');
    const store = `sqlite:${join(dir, 'steps.db')}`;
    const definition = JSON.parse(readFileSync(join(REPO_ROOT, 'workflows', 'code-review.json'), 'utf8')) as {
      steps: { title: string; prompt: string; agentRole?: string }[];
    };
    const { code, stdout, stderr } = await runCli(['workflow', 'run', 'code-review', '--root', project, '--store', store], env, 180_000);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    for (const step of definition.steps) {
      expect(stdout).toContain(`▸ ${step.title}\n    ${step.prompt.split('\n')[0]}`);
      expect(stdout).not.toContain(step.agentRole ?? '(no role)');
    }
    expect(stdout).not.toContain('## Agent Role');
    const workflowId = /^workflow (\S+)$/m.exec(stdout)?.[1] ?? '';
    const shown = await runCli(['workflow', 'show', workflowId, '--store', store], env, 60_000);
    expect(shown.stdout).toContain(`: ${definition.steps[0].title}`);
  }, 300_000);
});
