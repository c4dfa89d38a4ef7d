import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What indexing costs the process, measured where it happened: V8 recompiles a hot WebAssembly
 * function with its optimizing compiler, and for the Swift grammar's lexer (435 KB of code) that took
 * seconds and 3.4 GB, after one 3-line file. The child runs the built index with tier-up made
 * synchronous (so a recompilation happens inside the parse that asks for it, before the process
 * reports) and traced, and reports its peak memory.
 */

const TOOLS_DIST = join(__dirname, '..', '..', 'dist', 'index.js');
const SOURCES = join(__dirname, '..', '..', '..', 'index', 'src');

/** A function body this large is a grammar's lexer: the core's largest is under 30 KB. */
const HUGE_BODY = 100_000;

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-index-cost-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const CHILD = `
const { indexProject } = require(${JSON.stringify(TOOLS_DIST)});
indexProject(process.argv[1], undefined).then((update) => {
  const symbols = update.files.reduce((n, f) => n + f.symbols.length, 0);
  process.stdout.write('RESULT ' + JSON.stringify({ files: update.files.length, symbols, maxRssKb: process.resourceUsage().maxRSS }) + '\\n');
});
`;

interface Compiled {
  tier: string;
  body: number;
}

function indexInChild(): { result: { files: number; symbols: number; maxRssKb: number }; compiled: Compiled[] } {
  const child = spawnSync(process.execPath, ['--wasm-sync-tier-up', '--trace-wasm-compilation-times', '-e', CHILD, root], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(child.status).toBe(0);
  const line = child.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  const compiled = [...child.stdout.matchAll(/using (\w+),.*bodysize (\d+)/g)].map((m) => ({ tier: m[1], body: Number(m[2]) }));
  return { result: JSON.parse(line!.slice('RESULT '.length)), compiled };
}

describe('the cost of indexing in a process of its own', () => {
  it('a 3-line Swift file and a Kotlin file: no optimizing compile of their lexers, and little memory', () => {
    writeFileSync(join(root, 'Greeter.swift'), 'struct Greeter {\n    func greet() -> String { "hi" }\n}\n');
    writeFileSync(join(root, 'Main.kt'), 'class Greeter {\n    fun greet() = "hi"\n}\n\nfun main() {}\n');
    // Enough TypeScript after them that tier-up, on again, optimizes the parser's own hot functions.
    mkdirSync(join(root, 'ts'));
    for (let i = 0; i < 40; i++)
      for (const name of ['view.ts', 'symbols.ts']) copyFileSync(join(SOURCES, name), join(root, 'ts', `${i}-${name}`));

    const { result, compiled } = indexInChild();

    expect(result.files).toBe(82);
    expect(result.symbols).toBeGreaterThan(80 * 5);
    const optimized = compiled.filter((c) => c.tier === 'TurboFan');
    expect(optimized.filter((c) => c.body >= HUGE_BODY)).toEqual([]);
    expect(optimized.length).toBeGreaterThan(0);
    // Swift's lexer optimized took 3.4 GB; indexing these files takes about 100 MB.
    expect(result.maxRssKb).toBeLessThan(1024 * 1024);
  });
});
