import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NatsServerHandle {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function waitForReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`nats-server not ready after ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Server is ready')) {
        clearTimeout(timer);
        child.stderr?.off('data', onData);
        resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited with ${code}:\n${output}`));
    });
  });
}

/**
 * Starts a real nats-server (JetStream on) on a free loopback port with its own storage
 * directory. Fails loudly, naming the fix, when the binary is missing.
 */
export async function startNatsServer(options: { binary?: string; port?: number } = {}): Promise<NatsServerHandle> {
  const binary = options.binary ?? process.env['NATS_SERVER_BIN'] ?? 'nats-server';
  // A given port starts the server again where its clients expect it (a restart under load).
  const port = options.port ?? (await freePort());
  const storeDir = mkdtempSync(join(tmpdir(), 'stagecraft-nats-'));
  const child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => reject(new Error(`cannot start ${binary} (install it: apt-get install nats-server): ${error.message}`)));
  });
  await spawned;
  await waitForReady(child, 10_000);
  child.stderr?.resume();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? -1,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
