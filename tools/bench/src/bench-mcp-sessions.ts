import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { liveHeapMb, rssMb } from '@stagecraft/testing';

/**
 * `node tools/bench/dist/bench-mcp-sessions.js`: the resident memory of `stagecraft mcp --http` before
 * and after a client opens sessions (initialize) and never closes them, and how many of those sessions
 * the server still holds. BENCH_SESSIONS sets how many (1,200 by default).
 */

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1200);
const BIN = join(__dirname, '..', '..', '..', 'apps', 'cli', 'bin', 'stagecraft.cjs');

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

const TOKEN = 'bench-'.padEnd(40, 'x');

async function start(dir: string): Promise<{ child: ChildProcess; url: string; inspector: string }> {
  const child = spawn(process.execPath, ['--inspect=127.0.0.1:0', BIN, 'mcp', '--http', '0', '--root', dir, '--store', 'memory:'], {
    env: { ...process.env, OPENAI_API_KEY: '', NATS_URL: '', LOG_LEVEL: '', STAGECRAFT_MCP_TOKEN: TOKEN },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
      const found = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`stagecraft mcp exited (${code}):\n${stderr}`)));
  });
  return { child, url, inspector: /Debugger listening on (ws:\/\/\S+)/.exec(stderr)![1] };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
  const { child, url, inspector } = await start(dir);
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    // A server from before tokens ignores it.
    authorization: `Bearer ${TOKEN}`,
  };
  try {
    const post = (extra: Record<string, string>, body: string) => fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body });
    // Warm up: the first requests load the SDK's code paths.
    for (let i = 0; i < 20; i++) await (await post({}, initialize)).text();
    const before = rssMb(child.pid!);
    const heapBefore = await liveHeapMb(inspector);
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const res = await post({}, initialize);
      await res.text();
      if (res.status !== 200) throw new Error(`initialize answered ${res.status}`);
      const id = res.headers.get('mcp-session-id');
      if (id) ids.push(id);
    }
    const after = rssMb(child.pid!);
    const heapAfter = await liveHeapMb(inspector);
    let live = 0;
    for (const id of ids) {
      const res = await post({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, '{"jsonrpc":"2.0","id":2,"method":"ping"}');
      await res.text();
      if (res.status === 200) live++;
    }
    const mb = (from: number, to: number) => `${from.toFixed(1)} → ${to.toFixed(1)} MB (+${(to - from).toFixed(1)} MB)`;
    const line = `mcp sessions: ${SESSIONS} abandoned initializes, ${live} sessions still held; live heap ${mb(heapBefore, heapAfter)}, RSS ${mb(before, after)}`;
    process.stdout.write(`${line}\n`);
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
