import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkProjectRoot } from './project-root';

let base: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-roots-')));
  mkdirSync(join(base, 'allowed', 'project'), { recursive: true });
  mkdirSync(join(base, 'elsewhere'));
  writeFileSync(join(base, 'file.txt'), 'x');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (e: { code?: string }) => e.code,
  );

describe('checkProjectRoot', () => {
  it('accepts any existing absolute directory when no roots are configured', async () => {
    await expect(checkProjectRoot(join(base, 'elsewhere'))).resolves.toBe(join(base, 'elsewhere'));
  });

  it('refuses relative, missing and non-directory roots as invalid requests', async () => {
    expect(await codeOf(checkProjectRoot('relative/dir'))).toBe('VALIDATION');
    expect(await codeOf(checkProjectRoot(join(base, 'missing')))).toBe('VALIDATION');
    expect(await codeOf(checkProjectRoot(join(base, 'file.txt')))).toBe('VALIDATION');
  });

  it('confines roots to the configured ones and their subtrees', async () => {
    const allowed = [join(base, 'allowed')];
    await expect(checkProjectRoot(join(base, 'allowed', 'project'), allowed)).resolves.toBe(join(base, 'allowed', 'project'));
    await expect(checkProjectRoot(join(base, 'allowed'), allowed)).resolves.toBe(join(base, 'allowed'));
    expect(await codeOf(checkProjectRoot(join(base, 'elsewhere'), allowed))).toBe('FORBIDDEN_PATH');
    expect(await codeOf(checkProjectRoot(join(base, 'elsewhere'), []))).toBe('FORBIDDEN_PATH');
  });

  it('judges a symlinked root by where it really is', async () => {
    symlinkSync(join(base, 'elsewhere'), join(base, 'allowed', 'sneaky'));
    expect(await codeOf(checkProjectRoot(join(base, 'allowed', 'sneaky'), [join(base, 'allowed')]))).toBe('FORBIDDEN_PATH');
  });
});
