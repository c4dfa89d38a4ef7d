import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolContext } from '../context';
import { executeTool } from '../registry';

/** Tool calls in the race; raise STAGECRAFT_RACE_ATTEMPTS for a soak. */
const ATTEMPTS = Number(process.env.STAGECRAFT_RACE_ATTEMPTS ?? 3000);
const SECRET = `outside-secret-${process.pid}-c0ffee`;

// The attacker swaps `d` between a real directory of the root and a symlink to a directory outside,
// with atomic renames, as fast as it can, until a file `stop` appears. A `d` a tool created while
// neither was in place is moved aside, so the flipping never stalls. It runs as a separate OS process,
// and through a real `run_command` in the sandbox, as a model would run it.
const FLIPPER = `
const { existsSync, lstatSync, renameSync, writeFileSync } = require('node:fs');
const move = (from, to) => { try { renameSync(from, to); } catch {} };
writeFileSync('flipping', '');
for (let n = 0; n % 1024 !== 0 || !existsSync('stop'); n += 1) {
  move('d.real', 'd');
  move('d', 'd.real');
  move('d.link', 'd');
  move('d', 'd.link');
  if (lstatSync('d', { throwIfNoEntry: false })) move('d', 'made-' + n);
}`;

let base: string;
let root: string;
let outside: string;
let flipper: ChildProcess | undefined;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-race-')));
  root = join(base, 'project');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'd.real'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'd.real', 'f.txt'), 'inside\n');
  writeFileSync(join(outside, 'f.txt'), `${SECRET}\n`);
  writeFileSync(join(outside, `${SECRET}.txt`), `${SECRET}\n`);
  symlinkSync(outside, join(root, 'd.link'));
});
afterEach(() => {
  flipper?.kill('SIGKILL');
  flipper = undefined;
  rmSync(base, { recursive: true, force: true });
});

/** Resolves once the flipper has started (no timing: it is polled for). */
async function flipping(): Promise<void> {
  while (!existsSync(join(root, 'flipping'))) await new Promise((resolve) => setImmediate(resolve));
}

const everythingUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split('\\').join('/'))
    .sort();

const creation = (path: string) => `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+patched\n`;
const edit = (path: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-inside\n+inside\n`;

async function race(label: string): Promise<void> {
  const context: ToolContext = { root, allowedCommands: [], progress: () => undefined };
  await flipping();
  const calls: [Parameters<typeof executeTool>[0], (i: number) => unknown][] = [
    ['write_file', (i) => ({ path: `d/w-${i}.txt`, content: 'written\n' })],
    ['write_file', (i) => ({ path: `d/sub-${i}/w.txt`, content: 'written\n' })],
    ['read_file', () => ({ path: 'd/f.txt' })],
    ['apply_patch', (i) => ({ patch: creation(`d/p-${i}.txt`) })],
    ['apply_patch', () => ({ patch: edit('d/f.txt') })],
    ['list_dir', () => ({ path: 'd' })],
  ];
  let readEscapes = 0;
  let succeededInside = 0;
  for (let i = 0; i < ATTEMPTS; i += 1) {
    const [name, args] = calls[i % calls.length];
    const outcome = await executeTool(name, args(i), context);
    if (outcome.output.includes(SECRET)) readEscapes += 1;
    else if (outcome.ok) succeededInside += 1;
  }
  writeFileSync(join(root, 'stop'), '');
  const writtenOutside = everythingUnder(outside).filter((p) => p !== 'f.txt' && p !== `${SECRET}.txt`);
  const changedOutside = readFileSync(join(outside, 'f.txt'), 'utf8') === `${SECRET}\n` ? 0 : 1;
  const escapes = readEscapes + writtenOutside.length + changedOutside;
  process.stdout.write(
    `race (${label}): ${ATTEMPTS} attempts, ${ATTEMPTS - escapes} refused or inside (${succeededInside} succeeded), ${escapes} escapes` +
      ` (${readEscapes} reads, ${writtenOutside.length + changedOutside} writes outside)\n`,
  );
  expect({ readEscapes, writtenOutside, changedOutside }).toEqual({ readEscapes: 0, writtenOutside: [], changedOutside: 0 });
  // The race really ran: calls went through the real directory, and others were refused.
  expect(succeededInside).toBeGreaterThan(0);
  expect(succeededInside).toBeLessThan(ATTEMPTS);
}

describe(`file tools against a directory flipped to a symlink, ${ATTEMPTS} attempts`, () => {
  it('by a separate process: nothing written outside the root, nothing read from outside', async () => {
    flipper = spawn(process.execPath, ['-e', FLIPPER], { cwd: root, stdio: 'ignore' });
    await race('process');
  }, 600_000);

  it('by a run_command in the sandbox: nothing written outside the root, nothing read from outside', async () => {
    const context: ToolContext = { root, allowedCommands: ['node'], progress: () => undefined };
    const command = executeTool('run_command', { command: 'node', args: ['-e', FLIPPER], timeoutMs: 120_000 }, context);
    await Promise.race([
      race('run_command'),
      command.then((outcome) => Promise.reject(new Error(`the flipper ended early: ${outcome.output}`))),
    ]);
    expect((await command).ok).toBe(true);
  }, 600_000);
});
