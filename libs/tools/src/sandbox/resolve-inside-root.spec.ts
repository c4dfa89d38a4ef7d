import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';
import { displayPath, isInside, resolveInsideRoot, resolveWritableInsideRoot, touchesVcsMetadata } from './resolve-inside-root';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-sandbox-')));
  root = join(base, 'project');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'src', 'a.ts'), 'a');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function refusal(requested: string): Promise<StagecraftError> {
  const error = await resolveInsideRoot(root, requested).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StagecraftError);
  expect((error as StagecraftError).code).toBe('FORBIDDEN_PATH');
  return error as StagecraftError;
}

describe('resolveInsideRoot', () => {
  it('resolves relative paths, existing or not, to real paths inside the root', async () => {
    await expect(resolveInsideRoot(root, 'src/a.ts')).resolves.toBe(join(root, 'src', 'a.ts'));
    await expect(resolveInsideRoot(root, 'src/new/deep/b.ts')).resolves.toBe(join(root, 'src', 'new', 'deep', 'b.ts'));
    await expect(resolveInsideRoot(root, 'src/../src/./a.ts')).resolves.toBe(join(root, 'src', 'a.ts'));
    await expect(resolveInsideRoot(root, '.')).resolves.toBe(root);
    await expect(resolveInsideRoot(root, '')).resolves.toBe(root);
  });

  it('refuses ".." that leaves the root, however it is spelled', async () => {
    expect((await refusal('../outside/secret.txt')).message).toContain('leaves the project root');
    await refusal('..');
    await refusal('src/../../outside');
    await refusal('src/../../project-other/x');
  });

  it('refuses absolute paths, even ones inside the root', async () => {
    expect((await refusal('/etc/passwd')).message).toContain('absolute');
    await refusal(join(root, 'src', 'a.ts'));
    await refusal('C:\\Windows\\system.ini');
  });

  it('refuses NUL bytes', async () => {
    expect((await refusal('src/a.ts\0.png')).message).toContain('NUL');
  });

  it('refuses a symlinked file that points outside the root', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'src', 'link.txt'));
    expect((await refusal('src/link.txt')).message).toContain('symlink');
  });

  it('refuses paths through a symlinked directory that leads outside, existing or not', async () => {
    symlinkSync(outside, join(root, 'out'));
    await refusal('out');
    await refusal('out/secret.txt');
    await refusal('out/new-dir/new-file.txt');
  });

  it('refuses a dangling symlink, since a write through it would land wherever it points', async () => {
    symlinkSync(join(outside, 'not-yet.txt'), join(root, 'dangling'));
    expect((await refusal('dangling')).message).toContain('does not exist');
  });

  it('accepts symlinks that stay inside the root and answers with the real target', async () => {
    symlinkSync(join(root, 'src'), join(root, 'alias'));
    await expect(resolveInsideRoot(root, 'alias/a.ts')).resolves.toBe(join(root, 'src', 'a.ts'));
  });

  it('works when the root itself is reached through a symlink', async () => {
    symlinkSync(root, join(base, 'root-link'));
    await expect(resolveInsideRoot(join(base, 'root-link'), 'src/a.ts')).resolves.toBe(join(root, 'src', 'a.ts'));
  });
});

describe('resolveWritableInsideRoot', () => {
  it('refuses version-control metadata with the structured FORBIDDEN_PATH of every path refusal', async () => {
    mkdirSync(join(root, '.git'));
    symlinkSync(join(root, '.git'), join(root, 'g'));
    for (const path of ['.git/config', '.Git/HEAD', 'a/b/.hg/store', 'x/.SVN', 'g/hooks/post-checkout']) {
      const error = await resolveWritableInsideRoot(root, path).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StagecraftError);
      expect(error).toMatchObject({
        code: 'FORBIDDEN_PATH',
        message: `path '${path}' is not allowed: version-control metadata (.git, .hg, .svn) and .stagecraft are read-only to the file tools`,
        issues: [{ path: ['path'], message: 'version-control metadata (.git, .hg, .svn) and .stagecraft are read-only to the file tools' }],
      });
    }
    await expect(resolveWritableInsideRoot(root, 'src/.gitignore')).resolves.toBe(join(root, 'src', '.gitignore'));
    // Every other refusal stays as resolveInsideRoot answers it.
    await expect(resolveWritableInsideRoot(root, '../outside/x')).rejects.toMatchObject({ code: 'FORBIDDEN_PATH' });
  });

  it('matches whole path components only', () => {
    expect(touchesVcsMetadata('sub\\.git\\config')).toBe(true);
    expect(touchesVcsMetadata('.github/x')).toBe(false);
    expect(touchesVcsMetadata('x.git/y')).toBe(false);
  });
});

describe('isInside and displayPath', () => {
  it('does not confuse a sibling with the same prefix for a child', () => {
    expect(isInside('/a/project', '/a/project/x')).toBe(true);
    expect(isInside('/a/project', '/a/project')).toBe(true);
    expect(isInside('/a/project', '/a/project-other')).toBe(false);
    expect(isInside('/a/project', '/a')).toBe(false);
  });

  it('shows paths relative to the root', () => {
    expect(displayPath('/a/p', '/a/p/src/x.ts')).toBe('src/x.ts');
    expect(displayPath('/a/p', '/a/p')).toBe('.');
  });
});
