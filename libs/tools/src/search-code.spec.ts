import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolContext } from './context';
import { executeTool } from './registry';
import { searchCodeTool, SEARCH_BUDGET } from './search-code';

let root: string;
let outside: string;
let context: ToolContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-search-')));
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-search-outside-')));
  context = { root, allowedCommands: [], progress: () => undefined };
  mkdirSync(join(root, 'src', 'util'), { recursive: true });
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), 'export function alpha() {}\nconst beta = alpha();\n');
  writeFileSync(join(root, 'src', 'util', 'b.ts'), 'import { alpha } from "../a";\n');
  writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), 'alpha();\n');
  writeFileSync(join(root, 'src', 'blob.bin'), Buffer.concat([Buffer.from('alpha'), Buffer.from([0, 1, 2])]));
  writeFileSync(join(outside, 'leak.ts'), 'alpha leaked\n');
  symlinkSync(outside, join(root, 'linked'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('search_code', () => {
  it('finds literal text as path:line: text, in sorted order, skipping binaries, dependencies and symlinks', async () => {
    const result = await executeTool('search_code', { query: 'alpha' }, context);
    expect(result).toEqual({
      ok: true,
      truncated: false,
      output: 'src/a.ts:1: export function alpha() {}\nsrc/a.ts:2: const beta = alpha();\nsrc/util/b.ts:1: import { alpha } from "../a";',
    });
  });

  it('skips what .gitignore ignores (nested ones too) and build output, but searches a named ignored file', async () => {
    mkdirSync(join(root, 'coverage'));
    mkdirSync(join(root, 'dist'));
    mkdirSync(join(root, 'src', 'gen'));
    writeFileSync(join(root, '.gitignore'), 'coverage/\n*.log\n');
    writeFileSync(join(root, 'src', '.gitignore'), 'gen/\n');
    writeFileSync(join(root, 'coverage', 'report.ts'), 'alpha();\n');
    writeFileSync(join(root, 'dist', 'a.js'), 'alpha();\n');
    writeFileSync(join(root, 'src', 'gen', 'out.ts'), 'alpha();\n');
    writeFileSync(join(root, 'debug.log'), 'alpha();\n');
    const all = (await executeTool('search_code', { query: 'alpha' }, context)).output;
    expect(all).not.toMatch(/coverage|dist|gen\/out|debug\.log/);
    expect(all).toContain('src/a.ts:1:');
    expect((await executeTool('search_code', { query: 'alpha', path: 'debug.log' }, context)).output).toBe('debug.log:1: alpha();');
    expect((await executeTool('search_code', { query: 'alpha', path: 'src/gen' }, context)).output).toMatch(/no matches/);
  });

  it('treats the query as text unless regex is set', async () => {
    expect((await executeTool('search_code', { query: 'alpha();' }, context)).output).toBe('src/a.ts:2: const beta = alpha();');
    expect((await executeTool('search_code', { query: '^export\\s+function', regex: true }, context)).output).toBe(
      'src/a.ts:1: export function alpha() {}',
    );
  });

  it('searches a single file or a subdirectory', async () => {
    expect((await executeTool('search_code', { query: 'alpha', path: 'src/util' }, context)).output).toBe(
      'src/util/b.ts:1: import { alpha } from "../a";',
    );
    expect((await executeTool('search_code', { query: 'beta', path: 'src/a.ts' }, context)).output).toBe(
      'src/a.ts:2: const beta = alpha();',
    );
  });

  it('stops at maxResults and says more exist', async () => {
    const result = await executeTool('search_code', { query: 'alpha', maxResults: 2 }, context);
    expect(result.truncated).toBe(true);
    expect(result.output.split('\n').slice(0, 2)).toEqual(['src/a.ts:1: export function alpha() {}', 'src/a.ts:2: const beta = alpha();']);
    expect(result.output).toContain('[truncated at maxResults=2');
  });

  it('reports no matches as a successful empty search', async () => {
    await expect(executeTool('search_code', { query: 'gamma' }, context)).resolves.toEqual({
      ok: true,
      truncated: false,
      output: 'no matches for "gamma" in \'.\' (2 files searched)',
    });
  });

  it('fails with guidance for a bad regex, a missing path and an escape', async () => {
    const bad = await executeTool('search_code', { query: '(unclosed', regex: true }, context);
    expect(bad.ok).toBe(false);
    expect(bad.output).toContain('tool_error: INVALID_PATTERN');
    expect(bad.output).toContain('regex=false');
    expect((await executeTool('search_code', { query: 'x', path: 'missing' }, context)).output).toContain('tool_error: NOT_FOUND');
    expect((await executeTool('search_code', { query: 'alpha', path: 'linked' }, context)).output).toContain('tool_error: FORBIDDEN_PATH');
    expect((await executeTool('search_code', { query: '' }, context)).output).toContain('tool_error: INVALID_ARGUMENTS');
  });

  it('runs patterns that backtrack exponentially elsewhere in linear time, with results', async () => {
    // With the built-in engine each of these takes seconds to years on one such line.
    writeFileSync(join(root, 'src', 'long.txt'), `${'a'.repeat(5_000)}!\n${'a'.repeat(5_000)}\n${'x'.repeat(5_000)}\n`);
    const search = (query: string) => executeTool('search_code', { query, regex: true, path: 'src/long.txt' }, context);
    const aLine = `src/long.txt:2: ${'a'.repeat(300)}`;
    expect((await search('(a+)+$')).output).toBe(aLine);
    expect((await search('(a|aa)+$')).output).toBe(aLine);
    expect((await search('^(a|a?)+$')).output).toBe(aLine);
    expect((await search('(.*a){25}$')).output).toBe(aLine);
    expect((await search('^(\\w+\\s?)*$')).output).toBe(`${aLine}\nsrc/long.txt:3: ${'x'.repeat(300)}`);
    expect((await search('(x+x+)+y')).output).toMatch(/^no matches/);
  });

  it('keeps the event loop turning while it searches', async () => {
    const lines = `${Array.from({ length: 20_000 }, (_, i) => `${'a'.repeat(99)}${i % 2 ? '!' : ''}`).join('\n')}\n`;
    for (const name of ['1', '2', '3', '4']) writeFileSync(join(root, 'src', `big${name}.txt`), lines);
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    const result = await executeTool('search_code', { query: '(a+)+b$', regex: true, path: 'src' }, context).finally(() =>
      clearInterval(timer),
    );
    expect(result.output).toMatch(/^no matches .* \(6 files searched\)$/);
    expect(ticks).toBeGreaterThan(0);
  });

  it('names what RE2 syntax leaves out when a pattern uses it', async () => {
    const search = async (query: string) => (await executeTool('search_code', { query, regex: true }, context)).output;
    expect(await search('(a)\\1')).toMatch(/^tool_error: INVALID_PATTERN\nproblem: '\(a\)\\1' uses a backreference/);
    expect(await search('alpha(?=\\()')).toMatch(/uses a lookahead/);
    expect(await search('(?<!const )beta')).toMatch(/uses a lookbehind/);
    expect(await search('(?>a+)b')).toMatch(/uses an atomic group/);
    expect(await search('(?<!x)')).toContain('retry with regex=false');
    expect(await search('(?i)ALPHA\\(\\)')).toBe('src/a.ts:1: export function alpha() {}\nsrc/a.ts:2: const beta = alpha();');
  });

  it('says when a search was cut short by its budget, and what it found until then', async () => {
    for (const name of ['c1', 'c2', 'c3']) writeFileSync(join(root, 'src', `${name}.ts`), 'alpha();\n');
    const small = await searchCodeTool({ query: 'alpha', path: 'src', regex: false, maxResults: 100 }, context, {
      ...SEARCH_BUDGET,
      bytes: 60,
    });
    expect(small).toEqual({
      ok: true,
      truncated: true,
      output:
        'src/a.ts:1: export function alpha() {}\nsrc/a.ts:2: const beta = alpha();\n' +
        '[search cut short after 1 of 6 files (read budget of 60 bytes spent): the rest was not searched; narrow the path or the query]',
    });
    writeFileSync(join(root, 'src', 'big.txt'), `${'b\n'.repeat(1_000_000)}`);
    const slow = await searchCodeTool({ query: '(a+)+$', path: 'src/big.txt', regex: true, maxResults: 100 }, context, {
      ...SEARCH_BUDGET,
      ms: 0,
    });
    expect(slow.output).toMatch(/^no matches .*\n\[search cut short after 1 of 1 files \(time budget of 0 ms spent in src\/big.txt\)/);
  });
});
