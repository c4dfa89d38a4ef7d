import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@stagecraft/testing';
import { recordSpawn, releaseSpawn } from './in-flight';
import { RunningCalls } from './running-calls';

/** Live processes whose command line holds `text` (a zombie's is empty). */
function processesWith(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The call's two waiting processes (the shell around them holds the marker too, and is not counted). */
const sleepsWith = (text: string): number[] =>
  processesWith(text).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(process.execPath);
    } catch {
      return false;
    }
  });

describe('cancelling a running call (tool.cancel)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-running-calls-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A detached group whose child escaped into a session of its own, as a sandbox's init does. */
  function startCall(callId: string, marker: string) {
    // Node keeps the marker in its argv (`sleep` refuses an extra operand and would exit at once).
    const wait = (ms: number) => `"${process.execPath}" -e "setTimeout(() => {}, ${ms})" ${marker}`;
    const child = spawn('sh', ['-c', `setsid ${wait(31_000)} & ${wait(32_000)}; wait`], { detached: true, stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    recordSpawn(dir, callId, child.pid!, process.pid);
    return { exited };
  }

  it('kills the whole call, a process in its own session included, and reports it was cut off', async () => {
    const marker = `marker-${process.pid}-1`;
    const calls = new RunningCalls(dir, process.pid);
    calls.begin('call-1');
    const { exited } = startCall('call-1', marker);
    await eventually(async () => (sleepsWith(marker).length === 2 ? true : undefined), 'both sleeps to start');
    expect(calls.cancel('call-1')).toBe(true);
    await exited;
    await eventually(async () => (processesWith(marker).length === 0 ? true : undefined), 'every process of the call to be gone');
    releaseSpawn(dir, 'call-1');
    expect(calls.end('call-1')).toBe(true);
  });

  it('leaves alone a call it does not run, and a call cancelled before its process started is killed when it starts', async () => {
    const marker = `marker-${process.pid}-2`;
    const calls = new RunningCalls(dir, process.pid);
    expect(calls.cancel('not-here')).toBe(false);
    calls.begin('call-2');
    expect(calls.cancel('call-2')).toBe(true);
    const { exited } = startCall('call-2', marker);
    calls.spawned('call-2');
    await exited;
    await eventually(async () => (processesWith(marker).length === 0 ? true : undefined), 'the late process to be gone');
    expect(calls.end('call-2')).toBe(true);
    // A call that ran to its end untouched was not cut off.
    calls.begin('call-3');
    expect(calls.end('call-3')).toBe(false);
  });
});
