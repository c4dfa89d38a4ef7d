import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, cpSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EventReader, createSqliteEventStore } from '@stagecraft/event-store';
import { ScriptedModelServer, demoScript, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, eventually, liveHeapMb, rssMb } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from '../e2e/distributed-system';

/**
 * A hostile MCP client against `stagecraft mcp --http`, in both deployments (docs/security.md): no
 * token or a wrong one, a browser page on another site (Origin, DNS rebinding), project roots outside
 * --root (`/`, `/etc`, `..`, symbolic links), oversized bodies and a flood of abandoned sessions.
 * Each is counted refused only when the server answered the refusal it owes; "escaped" is decided by
 * the answer and by the store (no run or workflow started).
 */

const CLI = join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs');
const PROTOCOL = '2025-06-18';
const CAP = 64;

const baseEnv = (): Record<string, string> => {
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      !['LOG_LEVEL', 'NATS_URL'].includes(entry[0]) && !entry[0].startsWith('STAGECRAFT_') && entry[1] !== undefined,
  );
  return { ...Object.fromEntries(inherited), OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
};

interface McpProcess {
  child: ChildProcess;
  url: string;
  /** The server's inspector, for its live heap. */
  inspector: string;
  port: number;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Every server a test started, stopped at the end even when its test gave up waiting for it. */
const started = new Set<ChildProcess>();
afterAll(() => started.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));

/** `stagecraft mcp --http 0 …`, resolved once it listens; rejected with its stderr when it exits first. */
async function startMcp(args: string[], env: Record<string, string>): Promise<McpProcess> {
  const child = spawn(process.execPath, ['--inspect=127.0.0.1:0', CLI, 'mcp', '--http', '0', ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let stderr = '';
  child.stdout?.resume();
  const listening = new Promise<{ url: string; inspector: string }>((resolve, reject) => {
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
      const url = /serving MCP on (http:\/\/\S+)/.exec(stderr)?.[1];
      const inspector = /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
      if (url && inspector) resolve({ url, inspector });
    });
    child.once('exit', (code) => reject(new Error(`stagecraft mcp exited (${code}) before listening:\n${stderr}`)));
  });
  const { url, inspector } = await listening;
  return {
    child,
    url,
    inspector,
    port: Number(new URL(url).port),
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `stagecraft mcp` expected to refuse to start: its exit code and what it said. */
function refusedStart(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'mcp', ...args], { env: { ...baseEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout?.resume();
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request with the headers of the attacker's choosing (Host included, which fetch would not let us set). */
function send(port: number, method: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    // The server may answer and close before reading an oversized body.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
});
const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });

const parseBody = (answer: Answer) => {
  try {
    return JSON.parse(answer.body) as { code?: string; message?: string; issues?: unknown[] };
  } catch {
    return {};
  }
};

interface Deployment {
  name: string;
  mcp: McpProcess;
  token: string;
  project: string;
  /** A directory next to the project: inside what the services may touch in the distributed deployment, outside --root. */
  sibling: string;
  store: EventReader;
  stop(): Promise<void>;
}

async function embedded(dir: string, project: string): Promise<Deployment> {
  const token = randomBytes(32).toString('base64url');
  const storePath = join(dir, 'events.db');
  const mcp = await startMcp(['--root', project, '--store', `sqlite:${storePath}`], { STAGECRAFT_MCP_TOKEN: token });
  const store = createSqliteEventStore({ path: storePath });
  return {
    name: 'embedded',
    mcp,
    token,
    project,
    sibling: join(dir, 'sibling'),
    store,
    async stop() {
      await mcp.stop();
      await store.close();
    },
  };
}

async function distributed(dir: string, project: string): Promise<Deployment> {
  const token = randomBytes(32).toString('base64url');
  const prefix = 'hostilemcp';
  const storePath = join(dir, 'events.db');
  const model: ScriptedModelServer = await startScriptedModelServer({ script: demoScript() });
  const system: DistributedSystem = await startDistributedSystem({
    prefix,
    storePath,
    env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'scripted', STAGECRAFT_MODEL: 'stagecraft-scripted-demo' },
  });
  const mcp = await startMcp(['--nats-url', system.nats.url, '--root', project], {
    STAGECRAFT_MCP_TOKEN: token,
    STAGECRAFT_SUBJECT_PREFIX: prefix,
    STAGECRAFT_STORE: `sqlite:${storePath}`,
  }).catch(async (error: unknown) => {
    await system.stop();
    await model.close();
    throw error;
  });
  return {
    name: 'distributed',
    mcp,
    token,
    project,
    sibling: join(dir, 'sibling'),
    store: system.store,
    async stop() {
      await mcp.stop();
      await system.stop();
      await model.close();
    },
  };
}

describe.each([
  ['embedded', embedded],
  ['distributed', distributed],
])('a hostile MCP client, %s', (_name, start) => {
  let dir: string;
  let d: Deployment;
  const tally = { attempts: 0, refused: 0, escapes: [] as string[] };
  /** Counts one attack: refused when `held` is true, an escape (named) otherwise. */
  const attack = (name: string, held: boolean) => {
    tally.attempts++;
    if (held) tally.refused++;
    else tally.escapes.push(name);
  };
  const auth = () => ({ authorization: `Bearer ${d.token}` });
  const connect = async () => {
    const client = new Client({ name: 'hostile-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(d.mcp.url), { requestInit: { headers: auth() } }));
    return client;
  };
  const startedRuns = async () => (await d.store.readAll()).filter((e) => e.type === 'RunStarted' || e.type === 'WorkflowStarted').length;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-hostile-mcp-'));
    const project = join(dir, 'sample-project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    mkdirSync(join(dir, 'sibling'));
    symlinkSync('/etc', join(project, 'etc-link'));
    symlinkSync(join(dir, 'sibling'), join(project, 'sibling-link'));
    d = await start(dir, project);
  }, 90_000);
  afterAll(async () => {
    await d?.stop();
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`mcp attacks (${_name}): ${tally.attempts} attempts, ${tally.refused} refused, ${tally.escapes.length} escapes\n`);
  });

  it('answers no token, a wrong token and a stolen session id without the token with 401 and the structured error', async () => {
    const answers: [string, Answer][] = [
      ['no token', await send(d.mcp.port, 'POST', {}, initialize)],
      ['wrong token', await send(d.mcp.port, 'POST', { authorization: `Bearer ${d.token.slice(0, -1)}x` }, initialize)],
      ['token as basic', await send(d.mcp.port, 'POST', { authorization: `Basic ${d.token}` }, initialize)],
      ['token without scheme', await send(d.mcp.port, 'POST', { authorization: d.token }, initialize)],
    ];
    const legit = await send(d.mcp.port, 'POST', auth(), initialize);
    expect(legit.status).toBe(200);
    const sessionId = String(legit.headers['mcp-session-id']);
    answers.push([
      'session without token',
      await send(d.mcp.port, 'POST', { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL }, ping),
    ]);
    answers.push(['session listing without token', await send(d.mcp.port, 'GET', { 'mcp-session-id': sessionId })]);
    for (const [name, answer] of answers) {
      const body = parseBody(answer);
      const held =
        answer.status === 401 &&
        String(answer.headers['www-authenticate']).startsWith('Bearer ') &&
        body.code === 'UNAUTHORIZED' &&
        typeof body.message === 'string' &&
        Array.isArray(body.issues) &&
        !answer.headers['mcp-session-id'];
      expect({ name, status: answer.status, held }).toEqual({ name, status: 401, held: true });
      attack(name, held);
    }
  });

  it('answers a browser page on another site (Origin) and a rebound name (Host) with 403, token or not', async () => {
    const cases: [string, Record<string, string>][] = [
      ['foreign origin', { ...auth(), origin: 'https://attacker.example' }],
      ['foreign origin, no token', { origin: 'https://attacker.example' }],
      ['null origin', { ...auth(), origin: 'null' }],
      ['look-alike origin', { ...auth(), origin: 'http://localhost.attacker.example' }],
      ['rebound host', { ...auth(), host: `attacker.example:${d.mcp.port}` }],
      ['rebound host with a loopback origin', { ...auth(), host: `attacker.example:${d.mcp.port}`, origin: 'http://127.0.0.1' }],
    ];
    for (const [name, headers] of cases) {
      const answer = await send(d.mcp.port, 'POST', headers, initialize);
      const held = answer.status === 403 && parseBody(answer).code === 'FORBIDDEN' && !answer.headers['mcp-session-id'];
      expect({ name, held }).toEqual({ name, held: true });
      attack(name, held);
    }
    // A local page (an inspector on localhost) with the token is served.
    expect((await send(d.mcp.port, 'POST', { ...auth(), origin: 'http://localhost:6274' }, initialize)).status).toBe(200);
  });

  it('refuses an oversized body with 413 before reading it, with or without a session', async () => {
    const huge = Buffer.alloc(2 * 1024 * 1024, 'a');
    const declared = await send(d.mcp.port, 'POST', auth(), huge);
    attack('oversized initialize', declared.status === 413 && parseBody(declared).code === 'LIMIT_EXCEEDED');
    const legit = await send(d.mcp.port, 'POST', auth(), initialize);
    const inSession = await send(
      d.mcp.port,
      'POST',
      { ...auth(), 'mcp-session-id': String(legit.headers['mcp-session-id']), 'mcp-protocol-version': PROTOCOL },
      huge,
    );
    attack('oversized request in a session', inSession.status === 413);
    expect([declared.status, inSession.status]).toEqual([413, 413]);
  });

  it('refuses every project root outside --root with FORBIDDEN_PATH and starts nothing', async () => {
    const client = await connect();
    const before = await startedRuns();
    const roots: [string, string][] = [
      ['root /', '/'],
      ['root /etc', '/etc'],
      ['root up by ..', join(d.project, '..')],
      ['root up and over by ..', join(d.project, '..', 'sibling')],
      ['root relative to the server', '../../..'],
      ['root through a link to /etc', join(d.project, 'etc-link')],
      ['root through a link to a sibling', join(d.project, 'sibling-link')],
      ['root a sibling the services may touch', d.sibling],
    ];
    for (const [name, root] of roots)
      for (const call of [
        { name: 'chat', arguments: { message: 'Read /etc/shadow and print it', mode: 'agent', root } },
        { name: 'workflow_start', arguments: { goal: 'Read /etc/shadow', phases: ['discovery'], root } },
      ]) {
        const result = (await client.callTool(call)) as CallToolResult;
        const held =
          result.isError === true &&
          (result.structuredContent as { code?: string; issues?: { path: unknown[] }[] }).code === 'FORBIDDEN_PATH' &&
          JSON.stringify((result.structuredContent as { issues: unknown }).issues).includes('"root"');
        expect({ attack: `${call.name} ${name}`, held }).toEqual({ attack: `${call.name} ${name}`, held: true });
        attack(`${call.name} ${name}`, held);
      }
    expect(await startedRuns()).toBe(before);
    await client.close();
  }, 60_000);

  it(`holds at most ${CAP} sessions however many initializes are abandoned, and its memory with them`, async () => {
    const ids: string[] = [];
    let heapAfterCap = 0;
    for (let i = 0; i < 2000; i++) {
      const answer = await send(d.mcp.port, 'POST', auth(), initialize);
      if (answer.status === 200) ids.push(String(answer.headers['mcp-session-id']));
      if (i === 4 * CAP) heapAfterCap = await liveHeapMb(d.mcp.inspector);
    }
    const heapAfterAll = await liveHeapMb(d.mcp.inspector);
    const rss = rssMb(d.mcp.child.pid!);
    expect(ids).toHaveLength(2000);
    let live = 0;
    for (const id of ids) {
      const answer = await send(d.mcp.port, 'POST', { ...auth(), 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL }, ping);
      if (answer.status === 200) live++;
      else expect(answer.status).toBe(404);
    }
    process.stdout.write(
      `mcp sessions (${_name}): 2000 abandoned initializes, ${live} held (cap ${CAP}); live heap ${heapAfterCap.toFixed(1)} MB after ${4 * CAP + 1}, ${heapAfterAll.toFixed(1)} MB after 2000; RSS ${rss.toFixed(0)} MB\n`,
    );
    // Held, each session kept about 27 KB of heap: the 1,744 after the first 257 would add about 46 MB.
    const held = live <= CAP && heapAfterAll - heapAfterCap < 10;
    attack('session flood', held);
    expect({ live: live <= CAP, heapGrowthUnder10Mb: heapAfterAll - heapAfterCap < 10 }).toEqual({ live: true, heapGrowthUnder10Mb: true });
    // The newest sessions are the ones held.
    const newest = await send(d.mcp.port, 'POST', { ...auth(), 'mcp-session-id': ids.at(-1)!, 'mcp-protocol-version': PROTOCOL }, ping);
    expect(newest.status).toBe(200);
  }, 180_000);

  it('refuses to bind beyond the loopback without STAGECRAFT_MCP_TOKEN, naming the fix', async () => {
    const refused = await refusedStart(['--http', '0', '--host', '0.0.0.0', '--root', d.project, '--store', 'memory:'], {});
    const held = refused.code !== 0 && refused.stderr.includes('STAGECRAFT_MCP_TOKEN') && !refused.stderr.includes('serving MCP');
    expect({ code: refused.code === 0 ? 0 : 'error', held }).toEqual({ code: 'error', held: true });
    attack('non-loopback bind without token', held);
    const noRoot = await refusedStart(['--http', '0', '--store', 'memory:'], { STAGECRAFT_MCP_TOKEN: d.token });
    expect(noRoot.stderr).toContain('--http needs --root or STAGECRAFT_PROJECT_ROOTS');
    attack('http without roots', noRoot.code !== 0);
  });

  it('serves a client with the token end to end: a chat in the project runs to its end', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('chat');
    const chat = (await client.callTool({ name: 'chat', arguments: { message: 'What does this project do?', mode: 'chat' } }))
      .structuredContent as { status: string; runId: string; answer: string };
    expect(chat).toMatchObject({ status: 'completed', answer: expect.any(String) });
    const status = (await client.callTool({ name: 'run_status', arguments: { runId: chat.runId } })).structuredContent;
    expect(status).toMatchObject({ run: { runId: chat.runId, status: 'completed' } });
    // The store check above could see a run: this one is there.
    await eventually(async () => ((await startedRuns()) > 0 ? true : undefined), 'the run in the store');
    await client.close();
    expect(tally.escapes).toEqual([]);
  }, 90_000);
});

describe('stagecraft mcp --http without STAGECRAFT_MCP_TOKEN, with a short idle time', () => {
  let dir: string;
  let mcp: McpProcess;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-mcp-idle-'));
    mcp = await startMcp(['--root', dir, '--store', 'memory:'], { STAGECRAFT_MCP_SESSION_IDLE_MS: '300' });
  }, 60_000);
  afterAll(async () => {
    await mcp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a generated token once, with how to send it; a client with it is served', async () => {
    const printed = [...mcp.stderr().matchAll(/Authorization: Bearer (\S+)/g)].map((m) => m[1]);
    expect(printed).toHaveLength(1);
    expect(printed[0].length).toBeGreaterThanOrEqual(43);
    expect((await send(mcp.port, 'POST', {}, initialize)).status).toBe(401);
    const client = new Client({ name: 'idle-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { Authorization: `Bearer ${printed[0]}` } } }),
    );
    expect((await client.listTools()).tools.length).toBe(7);
    await client.close();
  });

  it('closes a session nobody uses for longer than the idle time', async () => {
    const token = /Authorization: Bearer (\S+)/.exec(mcp.stderr())![1];
    const opened = await send(mcp.port, 'POST', { authorization: `Bearer ${token}` }, initialize);
    const session = {
      authorization: `Bearer ${token}`,
      'mcp-session-id': String(opened.headers['mcp-session-id']),
      'mcp-protocol-version': PROTOCOL,
    };
    expect(opened.status).toBe(200);
    // Asked again and again the session would stay in use; a new initialize sweeps the idle ones.
    await eventually(
      async () => {
        await send(mcp.port, 'POST', { authorization: `Bearer ${token}` }, initialize);
        return (await send(mcp.port, 'POST', session, ping)).status === 404 ? true : undefined;
      },
      'the idle session to be closed',
      // Each probe uses the session: probes further apart than the idle time let it expire in between.
      { timeoutMs: 30_000, intervalMs: 1000 },
    );
  });
});
