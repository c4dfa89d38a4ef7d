import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntryPoint, IndexedFile } from '@stagecraft/contracts';
import { applyIndexUpdate, emptyIndex, findSymbol, serializeIndex } from '@stagecraft/index';
import { indexProject } from './build';

const FIXTURES = join(__dirname, '..', '..', '..', 'index', 'fixtures');

type Row = [kind: string, name: string, startLine: number, endLine: number, container?: string];

const rows = (file: IndexedFile | undefined): Row[] =>
  (file?.symbols ?? []).map((s) => [s.kind, s.name, s.startLine, s.endLine, ...(s.container ? [s.container] : [])] as Row);

interface Case {
  fixture: string;
  path: string;
  language: string;
  symbols: Row[];
  entryPoints: EntryPoint[];
  doc?: [name: string, doc: string];
}

const CASES: Case[] = [
  {
    fixture: 'typescript',
    path: 'src/main.ts',
    language: 'typescript',
    symbols: [
      ['function', 'greet', 2, 4],
      ['interface', 'Shape', 6, 8],
      ['method', 'area', 7, 7, 'Shape'],
      ['class', 'Circle', 10, 16],
      ['method', 'constructor', 11, 11, 'Circle'],
      ['method', 'area', 13, 15, 'Circle'],
      ['enum', 'Color', 18, 21],
      ['type', 'Point', 23, 23],
      ['function', 'double', 25, 25],
    ],
    entryPoints: [{ kind: 'service_entry', name: 'src/main.ts' }],
    doc: ['greet', 'Greets a person by name.'],
  },
  {
    fixture: 'python',
    path: 'app/__main__.py',
    language: 'python',
    symbols: [
      ['class', 'Greeter', 4, 11],
      ['method', '__init__', 7, 8, 'Greeter'],
      ['method', 'greet', 10, 11, 'Greeter'],
      ['function', 'helper', 14, 15],
    ],
    entryPoints: [
      { kind: 'main_function', name: '__main__', line: 18 },
      { kind: 'service_entry', name: 'app/__main__.py' },
    ],
    doc: ['Greeter', 'Greets people.'],
  },
  {
    fixture: 'go',
    path: 'cmd/server/main.go',
    language: 'go',
    symbols: [
      ['struct', 'Server', 6, 8],
      ['interface', 'Handler', 10, 12],
      ['method', 'Start', 14, 16, 'Server'],
      ['function', 'main', 18, 20],
    ],
    entryPoints: [
      { kind: 'main_function', name: 'main', line: 18 },
      { kind: 'service_entry', name: 'cmd/server/main.go' },
    ],
    doc: ['Server', 'Server answers requests.'],
  },
  {
    fixture: 'rust',
    path: 'src/main.rs',
    language: 'rust',
    symbols: [
      ['struct', 'Point', 2, 5],
      ['enum', 'Shape', 7, 10],
      ['trait', 'Area', 12, 14],
      ['method', 'area', 13, 13, 'Area'],
      ['method', 'new', 17, 19, 'Point'],
      ['function', 'main', 22, 24],
    ],
    entryPoints: [
      { kind: 'main_function', name: 'main', line: 22 },
      { kind: 'service_entry', name: 'src/main.rs' },
    ],
    doc: ['Point', 'A point in the plane.'],
  },
  {
    fixture: 'java',
    path: 'src/main/java/demo/App.java',
    language: 'java',
    symbols: [
      ['class', 'App', 4, 18],
      ['method', 'App', 7, 9, 'App'],
      ['method', 'greet', 11, 13, 'App'],
      ['method', 'main', 15, 17, 'App'],
      ['interface', 'Greeter', 20, 22],
      ['method', 'greet', 21, 21, 'Greeter'],
      ['enum', 'Mode', 24, 27],
    ],
    entryPoints: [{ kind: 'main_function', name: 'App.main', line: 15 }],
    doc: ['App', 'The application.'],
  },
  {
    fixture: 'kotlin',
    path: 'src/Main.kt',
    language: 'kotlin',
    symbols: [
      ['interface', 'Shape', 4, 6],
      ['method', 'area', 5, 5, 'Shape'],
      ['class', 'Circle', 8, 12],
      ['method', 'area', 9, 11, 'Circle'],
      ['enum', 'Color', 14, 17],
      ['class', 'Registry', 19, 23],
      ['method', 'register', 20, 22, 'Registry'],
      ['function', 'main', 25, 27],
    ],
    entryPoints: [
      { kind: 'main_function', name: 'main', line: 25 },
      { kind: 'service_entry', name: 'src/Main.kt' },
    ],
    doc: ['Shape', 'A shape with an area.'],
  },
  {
    fixture: 'swift',
    path: 'Sources/App/App.swift',
    language: 'swift',
    symbols: [
      ['interface', 'Shape', 2, 4],
      ['method', 'area', 3, 3, 'Shape'],
      ['struct', 'Square', 6, 12],
      ['method', 'area', 9, 11, 'Square'],
      ['class', 'Counter', 14, 20],
      ['method', 'increment', 17, 19, 'Counter'],
      ['enum', 'Direction', 22, 25],
      ['struct', 'App', 27, 32],
      ['method', 'main', 29, 31, 'App'],
    ],
    entryPoints: [{ kind: 'main_function', name: 'App', line: 27 }],
    doc: ['Shape', 'Something with an area.'],
  },
];

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-index-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const copy = (fixture: string) => {
  cpSync(join(FIXTURES, fixture), root, { recursive: true });
  return root;
};

describe('the codebase index on a fixture project per language', () => {
  it.each(CASES)('$language: every definition with its line range, and the entry points', async (c) => {
    const update = await indexProject(copy(c.fixture), undefined);
    const file = update.files.find((f) => f.path === c.path);
    expect(file?.language).toBe(c.language);
    expect(rows(file)).toEqual(c.symbols);
    expect(file?.entryPoints).toEqual(c.entryPoints);
    if (c.doc) expect(file?.symbols.find((s) => s.name === c.doc![0])?.doc).toBe(c.doc[1]);
    expect(file?.size).toBeGreaterThan(0);
  });

  it('reads package.json bins, main and scripts, and respects .gitignore', async () => {
    const update = await indexProject(copy('typescript'), undefined);
    expect(update.files.map((f) => f.path)).toEqual(['.gitignore', 'package.json', 'src/main.ts']);
    expect(update.files.find((f) => f.path === 'package.json')?.entryPoints).toEqual([
      { kind: 'bin', name: 'demo', detail: 'bin/demo.js' },
      { kind: 'main', name: '@demo/ts-app', detail: 'dist/index.js' },
      { kind: 'script', name: 'build', detail: 'tsc -b' },
      { kind: 'script', name: 'test', detail: 'jest' },
    ]);
  });

  it('skips node_modules, .git and dist whatever .gitignore says, and honours nested .gitignore files', async () => {
    copy('typescript');
    for (const dir of ['node_modules/dep', '.git', 'dist', 'src/private'])
      cpSync(join(FIXTURES, 'typescript', 'src'), join(root, dir), { recursive: true });
    writeFileSync(join(root, 'src', '.gitignore'), 'private/\n');
    const update = await indexProject(root, undefined);
    expect(update.files.map((f) => f.path)).toEqual(['.gitignore', 'package.json', 'src/.gitignore', 'src/main.ts']);
  });

  it('re-indexes only the changed file after an edit, and records nothing for an unchanged one', async () => {
    copy('go');
    writeFileSync(join(root, 'util.go'), 'package main\n\nfunc unchanged() {}\n');
    const view = applyIndexUpdate(emptyIndex(), await indexProject(root, undefined));
    writeFileSync(join(root, 'cmd/server/main.go'), 'package main\n\nfunc main() {}\n\nfunc Added() {}\n');
    const edit = await indexProject(root, view, ['cmd/server/main.go', 'util.go']);
    expect(edit.files.map((f) => f.path)).toEqual(['cmd/server/main.go']);
    expect(edit.removed).toEqual([]);
    applyIndexUpdate(view, edit);
    expect(findSymbol(view, { name: 'Added' })).toMatchObject([{ path: 'cmd/server/main.go', startLine: 5, endLine: 5, match: 'exact' }]);
    expect(findSymbol(view, { name: 'Server', kind: 'struct' })).toEqual([]);
    rmSync(join(root, 'util.go'));
    const removal = await indexProject(root, view, ['util.go']);
    expect(removal).toEqual({ root, files: [], removed: ['util.go'] });
  });

  it('folds the same updates into the same bytes', async () => {
    copy('rust');
    const first = await indexProject(root, undefined);
    writeFileSync(join(root, 'src/lib.rs'), 'pub fn lib_fn() {}\n');
    const view = applyIndexUpdate(emptyIndex(), first);
    const second = await indexProject(root, view, ['src/lib.rs']);
    applyIndexUpdate(view, second);
    const replayed = applyIndexUpdate(
      applyIndexUpdate(emptyIndex(), JSON.parse(JSON.stringify(first))),
      JSON.parse(JSON.stringify(second)),
    );
    expect(serializeIndex(replayed)).toBe(serializeIndex(view));
    expect(serializeIndex(view)).toContain('lib_fn');
  });
});

describe('entry points and containers that only look alike', () => {
  const indexOne = async (path: string, text: string) => {
    const absolute = join(root, path);
    cpSync(join(FIXTURES, 'typescript', '.gitignore'), join(root, '.gitignore'));
    writeFileSync(absolute, text);
    const update = await indexProject(root, undefined);
    return update.files.find((f) => f.path === path);
  };

  it('pyproject.toml: [project.scripts] are entry points', async () => {
    const file = await indexOne(
      'pyproject.toml',
      '[project]\nname = "demo"\n\n[project.scripts]\ndemo = "demo.cli:main"\n\n[project.gui-scripts]\ndemo-gui = "demo.gui:run"\n',
    );
    expect(file?.language).toBe('other');
    expect(file?.entryPoints).toEqual([
      { kind: 'bin', name: 'demo', detail: 'demo.cli:main' },
      { kind: 'bin', name: 'demo-gui', detail: 'demo.gui:run' },
    ]);
  });

  it('Kotlin: an extension function named main is a method of its receiver, not a program main', async () => {
    const file = await indexOne(
      'Tools.kt',
      [
        'fun String.main() {}',
        '',
        'fun <T> List<T>?.main(): Int = 1',
        '',
        'class Box {',
        '    fun Int.main() {}',
        '}',
        '',
        'fun main() {}',
        '',
      ].join('\n'),
    );
    expect(rows(file)).toEqual([
      ['method', 'main', 1, 1, 'String'],
      ['method', 'main', 3, 3, 'List'],
      ['class', 'Box', 5, 7],
      ['method', 'main', 6, 6, 'Box'],
      ['function', 'main', 9, 9],
    ]);
    expect(file?.entryPoints).toEqual([{ kind: 'main_function', name: 'main', line: 9 }]);
  });

  it('Swift: @main inside a string is not an entry point; the attribute is', async () => {
    const source = [
      '@available(*, deprecated, message: "use @main instead")',
      'struct Old {}',
      'let doc = "@main struct Fake {}"',
      'let more = """',
      '@main',
      'struct Inner {}',
      '"""',
      '@MainActor',
      'final class Model {}',
      '',
    ].join('\n');
    const file = await indexOne('Doc.swift', source);
    expect(rows(file)).toEqual([
      ['struct', 'Old', 1, 2],
      ['class', 'Model', 8, 9],
    ]);
    expect(file?.entryPoints).toEqual([]);
    const real = await indexOne('Doc.swift', `${source}@main\nstruct Real {\n    static func main() {}\n}\n`);
    expect(real?.entryPoints).toEqual([{ kind: 'main_function', name: 'Real', line: 10 }]);
  });

  it("Java: the methods of an anonymous class are not the enclosing class's", async () => {
    const file = await indexOne(
      'Outer.java',
      [
        'class Outer {',
        '    Runnable task = new Runnable() {',
        '        public void run() {}',
        '    };',
        '    Object[] many = { new Object() { public String toString() { return "x"; } } };',
        '    void go() {',
        '        new Thread() { public void start() {} }.start();',
        '    }',
        '    static class Inner {',
        '        void inner() {}',
        '    }',
        '}',
        '',
      ].join('\n'),
    );
    expect(rows(file)).toEqual([
      ['class', 'Outer', 1, 12],
      ['method', 'go', 6, 8, 'Outer'],
      ['class', 'Inner', 9, 11, 'Outer'],
      ['method', 'inner', 10, 10, 'Inner'],
    ]);
  });
});
