import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorReply, StagecraftError } from '@stagecraft/contracts';
import type { McpContext } from './context';
import { allowedRootsOf, projectRootOf } from './roots';

describe('the roots MCP tool calls may name', () => {
  let dir: string;
  let project: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-mcp-roots-'));
    project = join(dir, 'project');
    mkdirSync(join(project, 'sub'), { recursive: true });
    mkdirSync(join(dir, 'other'));
    symlinkSync('/etc', join(project, 'etc-link'));
    symlinkSync(join(dir, 'other'), join(project, 'other-link'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const refusal = (run: () => unknown): ErrorReply | null => {
    try {
      run();
      return null;
    } catch (error) {
      return (error as StagecraftError).toReply();
    }
  };

  it('are STAGECRAFT_PROJECT_ROOTS, else --root; over HTTP one of them is required', () => {
    expect(allowedRootsOf(project, undefined, true)).toEqual([project]);
    expect(allowedRootsOf(join(project, 'sub'), [dir], true)).toEqual([dir]);
    expect(allowedRootsOf(undefined, [dir], true)).toEqual([dir]);
    expect(allowedRootsOf(undefined, undefined, false)).toBeUndefined();
    expect(refusal(() => allowedRootsOf(undefined, undefined, true))).toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('--http needs --root or STAGECRAFT_PROJECT_ROOTS'),
    });
    expect(refusal(() => allowedRootsOf('/tmp', [project], false))).toMatchObject({
      message: expect.stringContaining('outside STAGECRAFT_PROJECT_ROOTS'),
    });
  });

  it('refuse /, /etc, a way out by .. or by a symbolic link with FORBIDDEN_PATH on root', async () => {
    const context = { root: project, allowedRoots: [project] } as unknown as McpContext;
    const refused = (root: string | undefined) =>
      projectRootOf(context, root).then(
        () => null,
        (error: StagecraftError) => error.toReply(),
      );
    for (const root of [
      '/',
      '/etc',
      join(project, '..'),
      join(project, 'sub', '..', '..', 'other'),
      join(project, 'etc-link'),
      join(project, 'other-link'),
    ])
      await expect(refused(root)).resolves.toMatchObject({ code: 'FORBIDDEN_PATH', issues: [{ path: ['root'] }] });
    await expect(refused('/no/such/dir')).resolves.toMatchObject({ code: 'VALIDATION', issues: [{ path: ['root'] }] });
    await expect(projectRootOf(context, undefined)).resolves.toBe(project);
    await expect(projectRootOf(context, join(project, 'sub', '..', 'sub'))).resolves.toBe(join(project, 'sub'));
  });
});
