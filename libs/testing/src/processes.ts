import { setTimeout as sleep } from 'node:timers/promises';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './nats-server';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/** A child process with its output kept and a SIGTERM stop: what every process a test starts is. */
export function spawnProcess(name: string, command: string, args: readonly string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(command, args, { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return {
    name,
    child,
    output: () => output,
    async stop() {
      // A process killed by a signal has no exit code, only a signal code.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = exitOf(child);
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The path of a built app's entry point (`apps/<name>/dist/main.js`). */
export const appMain = (name: string): string => join(REPO_ROOT, 'apps', name, 'dist', 'main.js');

/** Starts a built app as its own OS process. */
export const spawnApp = (name: string, env: Record<string, string>): ServiceProcess =>
  spawnProcess(name, process.execPath, [appMain(name)], env);

export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Polls an HTTP probe until it answers 200; rejects with the last answer after the deadline. */
export async function waitForHttp(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (error) {
      last = String(error);
    }
    await sleep(50);
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms: ${last}`);
}

/** The CLI decides its own log level (quiet unless LOG_LEVEL is given): tests see what a user sees. */
const withoutLogLevel = (env: NodeJS.ProcessEnv) => Object.fromEntries(Object.entries(env).filter(([key]) => key !== 'LOG_LEVEL'));

/** Runs the built CLI to completion and returns what it printed. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs'), ...args], {
      env: { ...withoutLogLevel(process.env), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(
      () => (child.kill('SIGKILL'), reject(new Error(`stagecraft ${args.join(' ')} timed out:\n${stdout}\n${stderr}`))),
      timeoutMs,
    );
    child.once('exit', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

export const SERVICE_APPS = ['conversation', 'policy', 'prompt-assembly', 'tool-execution', 'qa', 'memory'] as const;

/** The distributed deployment for a test: six app processes, each ready (its `/readyz` answers) before this resolves. */
export async function startServiceProcesses(env: (name: string, healthPort: number) => Record<string, string>): Promise<ServiceProcess[]> {
  const ports = await Promise.all(SERVICE_APPS.map(() => freePort()));
  const services = SERVICE_APPS.map((name, i) => spawnApp(name, env(name, ports[i])));
  await Promise.all(ports.map((port) => waitForHttp(`http://127.0.0.1:${port}/readyz`)));
  return services;
}
