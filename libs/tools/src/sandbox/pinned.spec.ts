import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';
import { ToolContext } from '../context';
import { executeTool } from '../registry';
import { walk } from '../walk';
import { readHeld, removeInsideRoot, withHandle, writeInsideRoot } from './pinned';
import { resolveInsideRoot } from './resolve-inside-root';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-pinned-')));
  root = join(base, 'project');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'd'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'd', 'f.txt'), 'inside\n');
  writeFileSync(join(outside, 'f.txt'), 'secret\n');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** What a concurrent command does between a tool's path check and its use: `d` becomes a symlink out. */
const swapDirectoryForSymlink = () => {
  renameSync(join(root, 'd'), join(root, 'd.moved'));
  symlinkSync(outside, join(root, 'd'));
};

const refusal = (act: () => unknown): StagecraftError => {
  let caught: unknown;
  try {
    act();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(StagecraftError);
  expect((caught as StagecraftError).code).toBe('FORBIDDEN_PATH');
  return caught as StagecraftError;
};

describe('acting on a checked path after a directory on it became a symlink', () => {
  it('reads nothing, writes nothing and removes nothing outside the root', async () => {
    const file = await resolveInsideRoot(root, 'd/f.txt');
    const created = await resolveInsideRoot(root, 'd/new.txt');
    const deep = await resolveInsideRoot(root, 'd/sub/deep.txt');
    swapDirectoryForSymlink();
    expect(refusal(() => withHandle(root, file, 'd/f.txt', (found) => found && readHeld(found.fd, 100))).message).toBe(
      "path 'd/f.txt' is not allowed: 'd' became a symlink while the path was in use",
    );
    refusal(() => writeInsideRoot(root, created, 'd/new.txt', 'x'));
    refusal(() => writeInsideRoot(root, deep, 'd/sub/deep.txt', 'x'));
    refusal(() => writeInsideRoot(root, file, 'd/f.txt', 'x'));
    refusal(() => removeInsideRoot(root, file, 'd/f.txt'));
    expect(readdirSync(outside)).toEqual(['f.txt']);
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('secret\n');
  });

  it('never reads through a file swapped for a symlink, and replaces the link itself rather than writing through it', async () => {
    const file = await resolveInsideRoot(root, 'd/f.txt');
    rmSync(file);
    symlinkSync(join(outside, 'f.txt'), file);
    refusal(() => withHandle(root, file, 'd/f.txt', (found) => found && readHeld(found.fd, 100)));
    expect(writeInsideRoot(root, file, 'd/f.txt', 'replaced\n')).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('replaced\n');
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('secret\n');
  });

  it('keeps listing the directory it opened, not the one its name leads to now', async () => {
    const directory = await resolveInsideRoot(root, 'd');
    const listed = withHandle(root, directory, 'd', (found) => {
      swapDirectoryForSymlink();
      return [...walk((found as { fd: number }).fd, 1)].map((e) => e.relative);
    });
    expect(listed).toEqual(['f.txt']);
  });

  it('refuses a path that climbs out of the root', () => {
    refusal(() => withHandle(root, join(root, '..', 'outside', 'f.txt'), '../outside/f.txt', () => 'read'));
  });
});

describe('the file tools on special files', () => {
  it('answer NOT_A_FILE for a FIFO without blocking on it', async () => {
    execFileSync('mkfifo', [join(root, 'd', 'pipe')]);
    const context: ToolContext = { root: realpathSync(root), allowedCommands: [], progress: () => undefined };
    const result = await executeTool('read_file', { path: 'd/pipe' }, context);
    expect(result.output).toContain('tool_error: NOT_A_FILE');
  });
});
