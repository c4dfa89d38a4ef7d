import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyTreeFromRoot } from './copy-tree';

let base: string;
let root: string;
let copy: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-copy-')));
  root = join(base, 'project');
  copy = join(base, 'copy');
  mkdirSync(join(root, 'src', 'empty'), { recursive: true });
  mkdirSync(join(root, 'skipme'));
  mkdirSync(join(base, 'outside'));
  mkdirSync(copy);
  writeFileSync(join(root, 'src', 'a.ts'), 'a\n');
  writeFileSync(join(root, 'run.sh'), '#!/bin/sh\n');
  chmodSync(join(root, 'run.sh'), 0o755);
  writeFileSync(join(root, 'skipme', 'x'), 'x');
  writeFileSync(join(base, 'outside', 'secret.txt'), 'secret\n');
  symlinkSync('src/a.ts', join(root, 'alias.ts'));
  symlinkSync(join(base, 'outside'), join(root, 'out'));
  execFileSync('mkfifo', [join(root, 'pipe')]);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('copyTreeFromRoot', () => {
  it('copies files with their modes, directories and symlinks as written, leaving out skipped paths and special files', async () => {
    await copyTreeFromRoot(root, copy, (path) => path === 'skipme');
    expect(readdirSync(copy).sort()).toEqual(['alias.ts', 'out', 'run.sh', 'src']);
    expect(readFileSync(join(copy, 'src', 'a.ts'), 'utf8')).toBe('a\n');
    expect(statSync(join(copy, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(join(copy, 'src', 'empty')).isDirectory()).toBe(true);
    expect(readlinkSync(join(copy, 'alias.ts'))).toBe('src/a.ts');
    // A symlink out of the root is copied as a link, never entered: nothing of outside is copied.
    expect(lstatSync(join(copy, 'out')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(copy, 'pipe'))).toBe(false);
  });
});
