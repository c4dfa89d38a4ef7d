import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolContext } from '../context';
import { executeTool } from '../registry';

/** Tool calls in the race; raise STAGECRAFT_RACE_ATTEMPTS for a soak. */
const ATTEMPTS = Number(process.env.STAGECRAFT_RACE_ATTEMPTS ?? 3000);
const SECRET = `outside-secret-${process.pid}-c0ffee`;

// A separate OS process, as a `run_command` would be: it swaps `d` between a real directory of the
// root and a symlink to a directory outside, with atomic renames, as fast as it can.
const FLIPPER = `
const { renameSync } = require('node:fs');
const [root] = process.argv.slice(1);
const d = root + '/d', real = root + '/d.real', link = root + '/d.link';
process.stdout.write('ready\\n');
for (;;) {
  try { renameSync(real, d); renameSync(d, real); } catch {}
  try { renameSync(link, d); renameSync(d, link); } catch {}
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
  rmSync(base, { recursive: true, force: true });
});

const startFlipper = () =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', FLIPPER, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    child.stdout.once('data', () => resolve(child));
  });

const everythingUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split('\\').join('/'))
    .sort();

const creation = (path: string) => `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+patched\n`;
const edit = (path: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-inside\n+inside\n`;

describe('file tools against a directory flipped to a symlink by another process', () => {
  it(`write nothing outside the root and read nothing from outside in ${ATTEMPTS} attempts`, async () => {
    const context: ToolContext = { root, allowedCommands: [], progress: () => undefined };
    flipper = await startFlipper();
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
    flipper.kill('SIGKILL');
    const writtenOutside = everythingUnder(outside).filter((p) => p !== 'f.txt' && p !== `${SECRET}.txt`);
    const changedOutside = readFileSync(join(outside, 'f.txt'), 'utf8') === `${SECRET}\n` ? 0 : 1;
    const escapes = readEscapes + writtenOutside.length + changedOutside;
    process.stdout.write(
      `race: ${ATTEMPTS} attempts, ${ATTEMPTS - readEscapes} refused or inside (${succeededInside} succeeded), ${escapes} escapes` +
        ` (${readEscapes} reads, ${writtenOutside.length + changedOutside} writes outside)\n`,
    );
    expect({ readEscapes, writtenOutside, changedOutside }).toEqual({ readEscapes: 0, writtenOutside: [], changedOutside: 0 });
    // The race really ran: some calls went through the real directory.
    expect(succeededInside).toBeGreaterThan(0);
  }, 600_000);
});
