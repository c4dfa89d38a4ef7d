import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NatsServerHandle {
  url: string;
  port: number;
  pid: number;
  /** What the server logged (the last 256 KiB): refused connections and permission violations among it. */
  log(): string;
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

export interface NatsServerOptions {
  binary?: string;
  port?: number;
  /** A configuration file (users, permissions, TLS); its address, store and monitoring port are replaced. */
  config?: string;
  /** More environment for the server: the variables a configuration file reads (`$NAME`). */
  env?: Record<string, string>;
}

/**
 * Starts a real nats-server (JetStream on) on a free loopback port with its own storage
 * directory. Fails loudly, naming the fix, when the binary is missing.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  // A free port found here may be taken by a parallel suite before the server binds it (or its monitoring
  // port): another port is tried then, a few times, instead of failing the suite.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 3 || !/address already in use/.test((error as Error).message)) throw error;
    }
  }
}

async function startOnce(options: NatsServerOptions): Promise<NatsServerHandle> {
  const binary = options.binary ?? process.env['NATS_SERVER_BIN'] ?? 'nats-server';
  // A given port starts the server again where its clients expect it (a restart under load).
  const port = options.port ?? (await freePort());
  const storeDir = mkdtempSync(join(tmpdir(), 'stagecraft-nats-'));
  // The flags win over the file: this address, this store, and a monitoring port of its own (-1: any free one).
  const config = options.config ? ['-c', options.config, '-m', '-1'] : [];
  const child = spawn(binary, [...config, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: options.env ? { ...process.env, ...options.env } : process.env,
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => reject(new Error(`cannot start ${binary} (install it: apt-get install nats-server): ${error.message}`)));
  });
  await spawned;
  try {
    await waitForReady(child, 10_000);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(storeDir, { recursive: true, force: true });
    throw error;
  }
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-256 * 1024)));
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? -1,
    log: () => log,
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
