import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { IndexedFile } from '@stagecraft/contracts';
import { IndexView, SymbolHit, applyIndexUpdate, emptyIndex, findSymbol, listEntryPoints } from '@stagecraft/index';
import { indexProject, loadParsers } from '@stagecraft/tools';
import { ms, percentile } from './stats';
import { prng } from '@stagecraft/testing';

/**
 * `npm run bench:index`: the codebase index on this repository (dependencies and build output
 * ignored), on a tree of real open-source packages copied from node_modules, and on a larger generated
 * tree in the seven languages, and on a generated Swift package. For each: full build, incremental
 * update after a one-file edit, `find_symbol` p50/p99, and recall@1 of `find_symbol` over 200 symbols
 * picked at random. Swift also runs as `stagecraft index` does, in a fresh process (one 3-line file;
 * the package, then a one-file edit): wall time and peak RSS of the whole process, so work V8 does on
 * other threads (compiling a grammar's WebAssembly) counts too.
 * Targets: incremental < 50 ms, find_symbol p99 < 5 ms, recall@1 ≥ 0.95. Numbers only, no assertions.
 * `BENCH_ONLY=swift` runs only the Swift rows.
 */

const EDITS = Number(process.env.BENCH_EDITS ?? 30);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 2000);
const SAMPLE = 200;
const GENERATED_FILES = Number(process.env.BENCH_GENERATED_FILES ?? 3500);

const WORDS =
  'account batch cache client config cursor digest event filter frame graph handler index ledger loader matrix node order packet parser queue record region router schema session signal socket stream table ticket token vector worker'.split(
    ' ',
  );
const ACTIONS =
  'build check close compute decode encode fetch flush format load merge open parse read render reset resolve scan send sort split store sync update validate write'.split(
    ' ',
  );
const cap = (w: string) => w[0].toUpperCase() + w.slice(1);

/** One file of a language with a few types, their methods and free functions; names mostly unique. */
function generatedFile(language: string, n: number, pick: () => number): { path: string; text: string } {
  const word = () => WORDS[Math.floor(pick() * WORDS.length)];
  const action = () => ACTIONS[Math.floor(pick() * ACTIONS.length)];
  const types = Array.from({ length: 3 }, (_, i) => `${cap(word())}${cap(word())}${n}x${i}`);
  const fns = Array.from({ length: 4 }, (_, i) => `${action()}${cap(word())}${n}y${i}`);
  const methods = () => Array.from({ length: 4 }, () => `${action()}${cap(word())}`);
  const dir = `pkg${n % 40}/mod${n % 7}`;
  const L: string[] = [];
  switch (language) {
    case 'typescript':
      for (const t of types)
        L.push(
          `/** The ${t}. */`,
          `export class ${t} {`,
          ...methods().flatMap((m) => [`  ${m}(x: number): number {`, '    return x + 1;', '  }']),
          '}',
          '',
        );
      for (const f of fns) L.push(`export function ${f}(a: string): string {`, '  return a.trim();', '}', '');
      return { path: `${dir}/file${n}.ts`, text: L.join('\n') };
    case 'python':
      for (const t of types)
        L.push(
          `class ${t}:`,
          `    """The ${t}."""`,
          ...methods().flatMap((m) => [`    def ${m}(self, x):`, '        return x + 1', '']),
          '',
        );
      for (const f of fns) L.push(`def ${f}(a):`, '    return a.strip()', '', '');
      return { path: `${dir}/file_${n}.py`, text: L.join('\n') };
    case 'go':
      L.push(`package mod${n % 7}`, '');
      for (const t of types)
        L.push(
          `// ${t} is generated.`,
          `type ${t} struct {`,
          '\tv int',
          '}',
          '',
          ...methods().flatMap((m) => [`func (s *${t}) ${cap(m)}(x int) int {`, '\treturn x + s.v', '}', '']),
        );
      for (const f of fns) L.push(`func ${f}(a string) string {`, '\treturn a', '}', '');
      return { path: `${dir}/file${n}.go`, text: L.join('\n') };
    case 'rust':
      for (const t of types)
        L.push(
          `/// The ${t}.`,
          `pub struct ${t} {`,
          '    v: i32,',
          '}',
          '',
          `impl ${t} {`,
          ...methods().flatMap((m) => [`    pub fn ${m}(&self, x: i32) -> i32 {`, '        x + self.v', '    }']),
          '}',
          '',
        );
      for (const f of fns) L.push(`pub fn ${f}(a: &str) -> &str {`, '    a', '}', '');
      return { path: `${dir}/file${n}.rs`, text: L.join('\n') };
    case 'java':
      L.push(`package mod${n % 7};`, '', `public class ${types[0]} {`);
      for (const m of [...methods(), ...fns]) L.push(`    public int ${m}(int x) {`, '        return x + 1;', '    }', '');
      L.push('}', '');
      for (const t of types.slice(1)) L.push(`interface ${t} {`, ...methods().map((m) => `    int ${m}(int x);`), '}', '');
      return { path: `${dir}/${types[0]}.java`, text: L.join('\n') };
    case 'kotlin':
      L.push(`package mod${n % 7}`, '');
      for (const t of types)
        L.push(`class ${t} {`, ...methods().flatMap((m) => [`    fun ${m}(x: Int): Int {`, '        return x + 1', '    }']), '}', '');
      for (const f of fns) L.push(`fun ${f}(a: String): String {`, '    return a.trim()', '}', '');
      return { path: `${dir}/File${n}.kt`, text: L.join('\n') };
    default:
      for (const t of types)
        L.push(
          `struct ${t} {`,
          '    var v: Int',
          ...methods().flatMap((m) => [`    func ${m}(x: Int) -> Int {`, '        return x + v', '    }']),
          '}',
          '',
        );
      for (const f of fns) L.push(`func ${f}(a: String) -> String {`, '    return a', '}', '');
      return { path: `${dir}/File${n}.swift`, text: L.join('\n') };
  }
}

function generateTree(root: string, files: number) {
  const pick = prng(7);
  const languages = ['typescript', 'python', 'go', 'rust', 'java', 'kotlin', 'swift'];
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'generated', bin: { gen: 'bin/gen.js' }, scripts: { build: 'tsc' } }));
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  for (let n = 0; n < files; n++) {
    const file = generatedFile(languages[n % languages.length], n, pick);
    mkdirSync(join(root, dirname(file.path)), { recursive: true });
    writeFileSync(join(root, file.path), file.text);
  }
  mkdirSync(join(root, 'build'));
  writeFileSync(join(root, 'build', 'ignored.ts'), 'export function ignoredByGitignore() {}\n');
}

const SWIFT_FILES = Number(process.env.BENCH_SWIFT_FILES ?? 270);

/** A Swift package: a manifest, an `@main` type and `files` generated sources over a few modules. */
function generateSwiftPackage(root: string, files: number) {
  const pick = prng(11);
  writeFileSync(
    join(root, 'Package.swift'),
    '// swift-tools-version:5.9\nimport PackageDescription\n\nlet package = Package(name: "Bench", targets: [.executableTarget(name: "App")])\n',
  );
  mkdirSync(join(root, 'Sources', 'App'), { recursive: true });
  writeFileSync(
    join(root, 'Sources', 'App', 'App.swift'),
    '@main\nstruct App {\n    static func main() {\n        print("bench")\n    }\n}\n',
  );
  for (let n = 1; n < files; n++) {
    const file = generatedFile('swift', n, pick);
    const path = join(root, 'Sources', `Module${n % 6}`, file.path.slice(file.path.lastIndexOf('/') + 1));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.text);
  }
}

interface ProcessRun {
  wallMs: number;
  peakRssMb: number;
  files: number;
  symbols: number;
  fullMs: number;
  incrementalMs?: number;
}

/** Peak resident memory of a live process so far (Linux), in MB; 0 where /proc is not there. */
function peakRss(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** `bench-index-process` in a fresh Node process: the whole process's wall time and its peak RSS. */
function freshProcess(root: string, edited?: string): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(__dirname, 'bench-index-process.js'), root, ...(edited ? [edited] : [])], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    let peak = 0;
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    // VmHWM only grows: the last reading before the process ends is its peak, give or take the sampling step.
    const sampler = setInterval(() => (peak = Math.max(peak, peakRss(child.pid ?? 0))), 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`bench-index-process exited ${code}`));
      resolve({ wallMs, peakRssMb: peak, ...(JSON.parse(out.trim()) as Omit<ProcessRun, 'wallMs' | 'peakRssMb'>) });
    });
  });
}

async function swiftRows(scratch: string) {
  const one = join(scratch, 'swift-one');
  mkdirSync(one);
  writeFileSync(join(one, 'Greeter.swift'), 'struct Greeter {\n    func greet() -> String { "hi" }\n}\n');
  const single = await freshProcess(one);
  const pkg = join(scratch, 'swift-package');
  mkdirSync(pkg);
  generateSwiftPackage(pkg, SWIFT_FILES);
  const whole = await freshProcess(pkg, 'Sources/App/App.swift');
  const mb = (n: number) => (n > 0 ? `${n.toFixed(0)} MB` : 'n/a');
  process.stdout.write(
    [
      `\nSwift as \`stagecraft index\` runs it, a fresh process each (wall time and peak RSS of the whole process):`,
      `  one 3-line file             ${ms(single.wallMs, 0)} wall, ${mb(single.peakRssMb)} peak (index ${ms(single.fullMs, 0)}, ${single.symbols} symbols)`,
      `  package, ${whole.files} files          ${ms(whole.wallMs, 0)} wall, ${mb(whole.peakRssMb)} peak (full build ${ms(whole.fullMs, 0)}, then a 1-file edit ${ms(whole.incrementalMs ?? 0, 1)}; ${whole.symbols} symbols)`,
    ].join('\n') + '\n',
  );
  await measure(`Swift package (${SWIFT_FILES} files), in this process`, pkg)();
}

/** Real open-source code: a few packages' sources as npm installed them. */
function copyOpenSource(root: string): string[] {
  // Packages that ship their TypeScript sources (not only compiled output).
  const packages = ['openai/src', 'zod/src', 'rxjs/src', '@grpc/grpc-js/src'];
  const copied: string[] = [];
  for (const p of packages) {
    const from = join(process.cwd(), 'node_modules', p);
    if (!existsSync(from)) continue;
    cpSync(from, join(root, p.replace(/\//g, '__')), { recursive: true });
    copied.push(p);
  }
  return copied;
}

const COMMENT: Record<string, string> = { python: '#' };

function measure(name: string, root: string) {
  return async () => {
    const started = performance.now();
    const update = await indexProject(root, undefined);
    const view = applyIndexUpdate(emptyIndex(), update);
    const buildMs = performance.now() - started;
    const files = [...view.files.values()];
    const parsed = files.filter((f) => f.language !== 'other' && f.symbols.length > 0);
    const symbols: SymbolHit[] = files.flatMap((f: IndexedFile) => f.symbols.map((s) => ({ ...s, path: f.path, language: f.language })));

    const pick = prng(42);
    const incremental: number[] = [];
    for (let i = 0; i < EDITS && parsed.length > 0; i++) {
      const file = parsed[Math.floor(pick() * parsed.length)];
      const absolute = join(root, file.path);
      const before = readFileSync(absolute);
      writeFileSync(absolute, Buffer.concat([before, Buffer.from(`\n${COMMENT[file.language] ?? '//'} bench edit ${i}\n`)]));
      const t = performance.now();
      applyIndexUpdate(view, await indexProject(root, view, [file.path]));
      incremental.push(performance.now() - t);
      writeFileSync(absolute, before);
      applyIndexUpdate(view, await indexProject(root, view, [file.path]));
    }

    findSymbol(view, { name: 'warm', limit: 20 });
    const lookups: number[] = [];
    for (let i = 0; i < QUERIES && symbols.length > 0; i++) {
      const s = symbols[Math.floor(pick() * symbols.length)];
      const query = i % 4 === 3 ? s.name.slice(0, Math.max(2, Math.floor(s.name.length / 2))) : s.name;
      const t = performance.now();
      findSymbol(view, { name: query, limit: 20 });
      lookups.push(performance.now() - t);
    }

    // A hit: the first result is the picked definition (the same file, name and container: an
    // overload's signatures and its implementation are one definition).
    const recall = { bare: 0, qualified: 0, scoped: 0 };
    const sample = Math.min(SAMPLE, symbols.length);
    for (let i = 0; i < sample; i++) {
      const s = symbols[Math.floor(pick() * symbols.length)];
      const same = (m: SymbolHit | undefined) => m !== undefined && m.path === s.path && m.name === s.name && m.container === s.container;
      const qualified = s.container ? `${s.container}.${s.name}` : s.name;
      const folder = s.path.includes('/') ? s.path.slice(0, s.path.lastIndexOf('/')) : undefined;
      if (same(findSymbol(view, { name: s.name, limit: 1 })[0])) recall.bare += 1;
      if (same(findSymbol(view, { name: qualified, limit: 1 })[0])) recall.qualified += 1;
      if (same(findSymbol(view, { name: qualified, path: folder, limit: 1 })[0])) recall.scoped += 1;
    }
    const rate = (n: number) => (n / sample).toFixed(3);

    process.stdout.write(
      [
        `\n${name}: ${view.files.size} files (${parsed.length} with definitions), ${symbols.length} symbols, ${listEntryPoints(view).length} entry points`,
        `  full build                 ${ms(buildMs, 0)} (${((buildMs / Math.max(1, view.files.size)) * 1000).toFixed(0)} µs/file)`,
        `  incremental, 1-file edit   p50 ${ms(percentile(incremental, 50), 2)}  p99 ${ms(percentile(incremental, 99), 2)}  max ${ms(Math.max(...incremental), 2)}  (${incremental.length} edits; target < 50 ms)`,
        `  find_symbol                p50 ${ms(percentile(lookups, 50), 3)}  p99 ${ms(percentile(lookups, 99), 3)}  (${lookups.length} queries, 1 in 4 a prefix; target p99 < 5 ms)`,
        `  recall@1 over ${sample} random symbols (target ≥ 0.95): ${rate(recall.scoped)} by Container.name in its folder, ${rate(recall.qualified)} by Container.name, ${rate(recall.bare)} by bare name`,
      ].join('\n') + '\n',
    );
  };
}

async function main() {
  await loadParsers(['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'kotlin', 'swift']);
  const scratch = mkdtempSync(join(tmpdir(), 'stagecraft-bench-index-'));
  try {
    // First, before this process has parsed anything: the fresh-process rows run beside it.
    await swiftRows(scratch);
    if (process.env.BENCH_ONLY === 'swift') return;
    const repo = join(scratch, 'repo');
    // A copy, so the edits never touch the working tree; node_modules, dist and .gitignored files are left out as the index would.
    cpSync(process.cwd(), repo, {
      recursive: true,
      filter: (src) => !/\/(node_modules|dist|\.git|\.nx|coverage|reports)(\/|$)/.test(src.slice(process.cwd().length)),
    });
    await measure('this repository', repo)();
    const oss = join(scratch, 'open-source');
    mkdirSync(oss);
    const packages = copyOpenSource(oss);
    await measure(`open-source packages (${packages.join(', ')})`, oss)();
    const generated = join(scratch, 'generated');
    mkdirSync(generated);
    generateTree(generated, GENERATED_FILES);
    await measure(`generated tree in seven languages (${GENERATED_FILES} files)`, generated)();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
