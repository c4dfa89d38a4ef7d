import type { IndexedFile, IndexedSymbol } from '@stagecraft/contracts';
import { manifestEntryPoints, serviceEntryOf } from './entry-points';
import { languageOf } from './language';
import { applyIndexUpdate, emptyIndex, findSymbol, foldIndex, listEntryPoints, projectMap, searchIndex, serializeIndex } from './view';

const sym = (
  name: string,
  kind: IndexedSymbol['kind'],
  startLine: number,
  endLine: number,
  extra: Partial<IndexedSymbol> = {},
): IndexedSymbol => ({
  name,
  kind,
  startLine,
  endLine,
  ...extra,
});
const file = (path: string, symbols: IndexedSymbol[], extra: Partial<IndexedFile> = {}): IndexedFile => ({
  path,
  language: languageOf(path),
  size: 100,
  hash: path.length.toString(16).padStart(64, '0'),
  symbols,
  entryPoints: [],
  ...extra,
});

const FILES = [
  file('src/shapes.ts', [
    sym('Circle', 'class', 1, 20, { doc: 'A round shape.' }),
    sym('area', 'method', 5, 7, { container: 'Circle' }),
    sym('parseConfig', 'function', 22, 30, { doc: 'Reads the configuration file.' }),
  ]),
  file('src/square.ts', [sym('Square', 'class', 1, 10), sym('area', 'method', 3, 5, { container: 'Square' })]),
  file('src/shapes.d.ts', [sym('parseConfig', 'function', 1, 1)]),
  file('src/shapes.spec.ts', [sym('parseConfig', 'function', 4, 9)]),
  file('lib/overload.ts', [sym('load', 'function', 1, 1), sym('load', 'function', 2, 2), sym('load', 'function', 3, 12)]),
  file('README.md', []),
];
const view = () => applyIndexUpdate(emptyIndex(), { root: '/p', files: FILES, removed: [] });

describe('languageOf', () => {
  it.each([
    ['a/b.ts', 'typescript'],
    ['x.d.ts', 'typescript'],
    ['c.tsx', 'tsx'],
    ['d.mjs', 'javascript'],
    ['e.py', 'python'],
    ['f.go', 'go'],
    ['g.rs', 'rust'],
    ['H.java', 'java'],
    ['i.kts', 'kotlin'],
    ['j.swift', 'swift'],
    ['Makefile', 'other'],
    ['.gitignore', 'other'],
    ['notes.txt', 'other'],
  ])('%s is %s', (path, language) => expect(languageOf(path)).toBe(language));
});

describe('entry points of manifests and service files', () => {
  it('reads a string bin under the unscoped package name', () => {
    expect(manifestEntryPoints('{"name":"@x/tool","bin":"cli.js","scripts":{"start":"node ."}}')).toEqual([
      { kind: 'bin', name: 'tool', detail: 'cli.js' },
      { kind: 'script', name: 'start', detail: 'node .' },
    ]);
  });

  it('finds nothing in a manifest that is not a JSON object, or has no entries', () => {
    for (const text of ['{', '[]', 'null', '"x"', '{"name":"a"}', '{"bin":5,"scripts":[1]}']) expect(manifestEntryPoints(text)).toEqual([]);
  });

  it('knows service entry files at the root, in src/ and in cmd/<name>/ only', () => {
    expect(serviceEntryOf('src/main.ts')).toEqual({ kind: 'service_entry', name: 'src/main.ts' });
    expect(serviceEntryOf('apps/api/src/index.ts')).toEqual({ kind: 'service_entry', name: 'apps/api/src/index.ts' });
    expect(serviceEntryOf('main.go')).toEqual({ kind: 'service_entry', name: 'main.go' });
    expect(serviceEntryOf('cmd/server/main.go')).toEqual({ kind: 'service_entry', name: 'cmd/server/main.go' });
    expect(serviceEntryOf('index.ts')).toBeNull();
    expect(serviceEntryOf('src/util/main.ts')).toBeNull();
    expect(serviceEntryOf('src/other.ts')).toBeNull();
  });
});

describe('the index view', () => {
  it('finds an exact name first, sources before declarations and tests', () => {
    expect(findSymbol(view(), { name: 'parseConfig' }).map((m) => [m.path, m.match])).toEqual([
      ['src/shapes.ts', 'exact'],
      ['src/shapes.spec.ts', 'exact'],
      ['src/shapes.d.ts', 'exact'],
    ]);
  });

  it('puts an implementation before its overload signatures', () => {
    expect(findSymbol(view(), { name: 'load', limit: 1 })).toMatchObject([{ path: 'lib/overload.ts', startLine: 3, endLine: 12 }]);
  });

  it('narrows by container (Type.method), kind, language and path', () => {
    expect(findSymbol(view(), { name: 'Square.area' })).toMatchObject([{ path: 'src/square.ts', startLine: 3, container: 'Square' }]);
    expect(findSymbol(view(), { name: 'area', path: 'src/shapes.ts' })).toMatchObject([{ container: 'Circle' }]);
    expect(findSymbol(view(), { name: 'parseConfig', path: 'lib' })).toEqual([]);
    expect(findSymbol(view(), { name: 'Circle', kind: 'function' })).toEqual([]);
    expect(findSymbol(view(), { name: 'Circle', language: 'python' })).toEqual([]);
  });

  it('falls back to other case, prefix, substring, then in-order letters', () => {
    expect(findSymbol(view(), { name: 'circle' })).toMatchObject([{ name: 'Circle', match: 'case_insensitive' }]);
    expect(findSymbol(view(), { name: 'squ' })).toMatchObject([{ name: 'Square', match: 'prefix' }]);
    expect(findSymbol(view(), { name: 'Config' })[0]).toMatchObject({ name: 'parseConfig', match: 'substring' });
    expect(findSymbol(view(), { name: 'prscfg' })[0]).toMatchObject({ name: 'parseConfig', match: 'fuzzy' });
    expect(findSymbol(view(), { name: 'zzzz' })).toEqual([]);
  });

  it('applies removals and replacements, and a fold of the same updates gives the same bytes', () => {
    const second = { root: '/p', files: [file('src/square.ts', [sym('Rect', 'class', 1, 4)])], removed: ['src/shapes.ts'] };
    const live = applyIndexUpdate(view(), second);
    expect(findSymbol(live, { name: 'Square' })).toEqual([]);
    expect(findSymbol(live, { name: 'Circle' })).toEqual([]);
    expect(findSymbol(live, { name: 'Rect' })).toMatchObject([{ path: 'src/square.ts' }]);
    const meta = { occurredAt: '2026-01-01T00:00:00.000Z' };
    const replayed = foldIndex([
      { type: 'IndexUpdated', data: { root: '/p', files: FILES, removed: [] }, metadata: meta },
      { type: 'IndexUpdated', data: second, metadata: meta },
    ]);
    expect(serializeIndex(replayed)).toBe(serializeIndex(live));
  });

  it('searches names split at camel case, doc comments and paths', () => {
    expect(searchIndex(view(), 'configuration file')).toMatchObject([{ path: 'src/shapes.ts', symbol: { name: 'parseConfig' } }]);
    expect(searchIndex(view(), 'round')[0]).toMatchObject({ symbol: { name: 'Circle' } });
    expect(searchIndex(view(), 'square').map((h) => h.symbol?.name ?? h.path)[0]).toBe('Square');
    expect(searchIndex(view(), '  ')).toEqual([]);
  });

  it('lists entry points bins first, and maps the layout', () => {
    const live = applyIndexUpdate(view(), {
      root: '/p',
      files: [
        file('package.json', [], {
          entryPoints: [
            { kind: 'script', name: 'test', detail: 'jest' },
            { kind: 'bin', name: 'p', detail: 'cli.js' },
          ],
        }),
        file('src/main.ts', [], { entryPoints: [{ kind: 'service_entry', name: 'src/main.ts' }] }),
      ],
      removed: [],
    });
    expect(listEntryPoints(live).map((e) => e.kind)).toEqual(['bin', 'service_entry', 'script']);
    expect(projectMap(live)).toBe(
      [
        'Layout:',
        '- . (2 files)',
        '- lib/ (1 file; typescript)',
        '- src/ (5 files; typescript)',
        'Entry points:',
        '- bin p → cli.js (package.json)',
        '- service_entry src/main.ts (src/main.ts)',
        '- script test → jest (package.json)',
      ].join('\n'),
    );
    expect(projectMap(emptyIndex())).toBe('');
  });
});
