import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, REPO_ROOT, ServiceProcess, eventually, requireChromium, spawnProcess } from '@stagecraft/testing';

/**
 * The web console in Debian's Chromium (playwright-core), against `stagecraft console --store` with the
 * scripted demo model: a run started through the API appears in the table and moves live, its prompts and
 * diffs show, an approval answered from the page lets it finish, a cancel from the page ends another.
 * Each page's screenshot goes to reports/ (CI keeps them).
 */
const REPORTS = join(REPO_ROOT, 'reports');
const TOKEN = 'console-e2e-token-0123456789abcdef0123456789';
const NOTES = 'STAGECRAFT_NOTES.md';
/** Generous: five engineers' builds and tests share two cores. */
const SLOW = { timeout: 120_000 };

describe('the web console in Chromium', () => {
  let dir: string;
  let console_: ServiceProcess;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  const projects: string[] = [];
  const fresh = (name: string) => {
    const project = join(dir, name);
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    projects.push(project);
    return project;
  };

  async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const reply = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await reply.text();
    if (!reply.ok) throw new Error(`${method} ${path}: ${reply.status} ${text}`);
    return JSON.parse(text) as T;
  }

  const startChat = (message: string, projectRoot: string) =>
    api<{ runId: string; conversationId: string }>('POST', '/chats', {
      message,
      projectRoot,
      mode: 'agent',
      reasoning: true,
      approve: 'writes',
    });
  const runStatus = async (runId: string) => (await api<{ status: string }>('GET', `/runs/${runId}`)).status;
  const waitingApproval = (runId: string) =>
    eventually(
      async () => ((await api<{ pendingApprovals: unknown[] }>('GET', `/runs/${runId}`)).pendingApprovals.length ? true : undefined),
      `run ${runId} to wait for approval`,
      {
        timeoutMs: 120_000,
        intervalMs: 250,
      },
    );

  beforeAll(async () => {
    const executablePath = requireChromium();
    mkdirSync(REPORTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-console-web-'));
    const store = `sqlite:${join(dir, 'events.db')}`;
    // No model key: the scripted demo model answers (a read, then a write that waits for approval).
    console_ = spawnProcess(
      'console',
      process.execPath,
      [join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs'), 'console', '--store', store, '--port', '0'],
      {
        OPENAI_API_KEY: '',
        OPENAI_BASE_URL: '',
        NATS_URL: '',
        STAGECRAFT_API_TOKEN: TOKEN,
      },
    );
    base = await eventually(
      async () => {
        if (console_.child.exitCode !== null)
          throw new Error(`stagecraft console exited ${console_.child.exitCode}:\n${console_.output()}`);
        return /(http:\/\/127\.0\.0\.1:\d+)\/#token=/.exec(console_.output())?.[1];
      },
      'the console to print its URL',
      { timeoutMs: 90_000, intervalMs: 100 },
    );
    context = await chromium.launchPersistentContext(join(dir, 'chromium-profile'), {
      executablePath,
      headless: true,
      viewport: { width: 1400, height: 1000 },
      args: [...CHROMIUM_ARGS],
    });
    page = context.pages()[0] ?? (await context.newPage());
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await console_?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let first: { runId: string; conversationId: string };

  it('takes the token from the fragment, then shows a run started through the API in the table, live', async () => {
    await page.goto(`${base}/#token=${TOKEN}`);
    await page.locator('[data-testid="runs-table"][data-ready="true"]').waitFor(SLOW);
    // The token left the address bar; the page keeps it for this tab only.
    expect(page.url()).toBe(`${base}/`);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(1);

    // Markup in a message is text: it never becomes an element or runs.
    first = await startChat(`<img src=x onerror="window.__injected=1"> Summarise this project in ${NOTES}`, fresh('approved'));
    const row = page.locator(`[data-testid="run-row"][data-run-id="${first.runId}"]`);
    await row.waitFor(SLOW);
    // It moves without a reload: the row reaches the approval the write waits for.
    await row.locator('.badge.waiting').waitFor(SLOW);
    expect(await row.getAttribute('data-status')).toBe('running');
    expect(await row.textContent()).toContain('<img src=x onerror=');
    expect(await page.locator('[data-testid="runs-table"] img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __injected?: number }).__injected)).toBeUndefined();
    await page.screenshot({ path: join(REPORTS, 'console-runs.png'), fullPage: true });
  }, 240_000);

  it('shows the run’s prompts; an approval from the page lets it write and finish, and its diff shows', async () => {
    await page.locator(`[data-testid="run-row"][data-run-id="${first.runId}"] a`).first().click();
    await page.waitForURL(`${base}/runs/${first.runId}`);
    const approval = page.locator('[data-testid="approval"]');
    await approval.waitFor(SLOW);
    expect(await approval.textContent()).toContain(`write_file ${NOTES}`);
    expect(existsSync(join(projects[0], NOTES))).toBe(false);

    // The assembled prompt of each request, as sent, folded until opened.
    const prompt = page.locator('[data-testid="request"] [data-testid="prompt"]').first();
    await prompt.waitFor(SLOW);
    await prompt.locator('summary').click();
    expect(await prompt.textContent()).toContain(`Summarise this project in ${NOTES}`);

    await approval.locator('[data-testid="approve"]').click();
    await page.locator('[data-testid="run-status"] [data-status="completed"]').waitFor(SLOW);
    expect(await runStatus(first.runId)).toBe('completed');
    expect(existsSync(join(projects[0], NOTES))).toBe(true);

    const diff = page.locator(`[data-testid="diff"][data-path="${NOTES}"]`);
    await diff.waitFor(SLOW);
    const added = await diff.locator('.dl-add').allTextContents();
    const written = readFileSync(join(projects[0], NOTES), 'utf8').split('\n')[0];
    expect(added.map((line) => line.slice(1))).toContain(written);
    expect(await page.locator('[data-testid="stages"] li').count()).toBeGreaterThan(1);
    await page.screenshot({ path: join(REPORTS, 'console-run.png'), fullPage: true });
  }, 240_000);

  it('cancels a waiting run from its page, with the reason given there', async () => {
    const project = fresh('cancelled');
    const second = await startChat(`Summarise this project in ${NOTES}`, project);
    await waitingApproval(second.runId);
    await page.goto(`${base}/runs/${second.runId}`);
    await page.locator('[data-testid="approval"]').waitFor(SLOW);
    await page.locator('[data-testid="cancel-reason"]').fill('stopped from the console');
    await page.locator('[data-testid="cancel"]').click();
    await page.locator('[data-testid="run-status"] [data-status="cancelled"]').waitFor(SLOW);
    expect(await page.locator('[data-testid="cause"]').textContent()).toContain('stopped from the console');
    expect(await runStatus(second.runId)).toBe('cancelled');
    expect(existsSync(join(project, NOTES))).toBe(false);
  }, 240_000);

  it('shows a conversation turn by turn, linked to its runs', async () => {
    await page.goto(`${base}/conversations/${first.conversationId}`);
    const turn = page.locator('[data-testid="turn"]').first();
    await turn.waitFor(SLOW);
    expect(await turn.textContent()).toContain(`Summarise this project in ${NOTES}`);
    await page.screenshot({ path: join(REPORTS, 'console-conversation.png'), fullPage: true });
    await turn.locator('[data-testid="turn-run"]').first().click();
    await page.waitForURL(`${base}/runs/${first.runId}`);
  }, 240_000);

  it('shows a workflow started through the API as phases, agents and their runs', async () => {
    const { workflowRunId } = await api<{ workflowRunId: string }>('POST', '/workflows', {
      input: 'Document the converters',
      projectRoot: fresh('workflow'),
      phases: ['discovery'],
    });
    await page.goto(`${base}/workflows/${workflowRunId}`);
    const agent = page.locator('[data-testid="phase"] [data-testid="agent"]').first();
    await agent.waitFor(SLOW);
    // The page follows the workflow live until its collector decides.
    await page.locator('[data-testid="decision"]').first().waitFor(SLOW);
    const runLink = agent.locator('a').first();
    expect(await runLink.getAttribute('href')).toMatch(/^\/runs\/[^/]+$/);
    await page.screenshot({ path: join(REPORTS, 'console-workflow.png'), fullPage: true });
  }, 300_000);
});
