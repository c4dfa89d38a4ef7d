import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import dockerignore from '@balena/dockerignore';
import ts from 'typescript';

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  /** The image after ARG defaults are substituted, e.g. `node:24-bookworm-slim`. */
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Joins continuation lines and drops comments (parser directives too), so each entry is one instruction. */
export function dockerfileInstructions(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\[ \t]*\r?\n/g, ' ');
  return logical
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** `${NAME}`, `$NAME` and `${NAME:-default}` filled from `args`, as a build fills a FROM line. */
function substitute(text: string, args: Map<string, string>): string {
  return text.replace(/\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)/g, (_, braced: string, fallback: string | undefined, bare: string) => {
    const value = args.get(braced ?? bare);
    return value ? value : (fallback ?? '');
  });
}

/** Build stages in order; ARGs declared before the first FROM fill `${NAME}` in FROM lines. */
export function dockerfileStages(text: string): Stage[] {
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const ins of dockerfileInstructions(text)) {
    if (ins.keyword === 'FROM') {
      const words = ins.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const asIndex = words.findIndex((w) => w.toUpperCase() === 'AS');
      stages.push({ from: substitute(words[0], globalArgs), name: asIndex >= 0 ? words[asIndex + 1] : undefined, instructions: [] });
    } else if (stages.length === 0 && ins.keyword === 'ARG') {
      const [name, value = ''] = ins.args.split('=');
      globalArgs.set(name, value);
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push(ins);
    }
  }
  return stages;
}

/** The ARGs declared before the first FROM: what `--build-arg` may set for FROM lines. */
export function globalArgNames(text: string): string[] {
  const names: string[] = [];
  for (const ins of dockerfileInstructions(text)) {
    if (ins.keyword === 'FROM') break;
    if (ins.keyword === 'ARG') names.push(ins.args.split('=')[0]);
  }
  return names;
}

/** The user a stage runs as: its last USER, or root when it sets none. */
export function stageUser(stage: Stage): string {
  const users = stage.instructions.filter((i) => i.keyword === 'USER');
  return users.length > 0 ? users[users.length - 1].args.split(':')[0] : 'root';
}

/** Whether a path (relative to the context root) reaches the build, by Docker's own .dockerignore rules. */
export function buildContextFilter(dockerignoreText: string): (path: string) => boolean {
  const rules = dockerignoreText.split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  const matcher = dockerignore().add(rules);
  return (path) => !matcher.ignores(path);
}

/** The context paths a stage's `COPY`/`ADD` read (not those copied from another stage). */
export function contextSources(stage: Stage): string[] {
  return stage.instructions
    .filter((i) => (i.keyword === 'COPY' || i.keyword === 'ADD') && !/--from=/.test(i.args))
    .flatMap((i) => {
      const words = i.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      return words.slice(0, -1);
    });
}

/**
 * The TypeScript configs a stage's RUN lines build with `tsc -b FILE`, following `npm run NAME` into
 * package.json's scripts, so a build config named through a script is checked too.
 */
export function buildConfigs(stage: Stage, scripts: Record<string, string>): string[] {
  const commands = stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  const expanded = commands.flatMap((command) => [
    command,
    ...[...command.matchAll(/npm run(?: -s)? ([\w:-]+)/g)].map((m) => scripts[m[1]] ?? ''),
  ]);
  return expanded.flatMap((command) => [...command.matchAll(/tsc (?:-b|--build) (\S+\.json)/g)].map((m) => m[1]));
}

/**
 * Every config file `tsc -b entry` reads: the entry, what each config extends and each project it
 * references, transitively; paths relative to `root`, missing files included so a check can name them.
 */
export function tsconfigClosure(root: string, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    const path = relative(root, file);
    if (seen.has(path)) return;
    seen.add(path);
    if (!existsSync(file)) return;
    const { config } = ts.readConfigFile(file, (f) => readFileSync(f, 'utf8'));
    const base = dirname(file);
    if (typeof config?.extends === 'string' && config.extends.startsWith('.')) visit(resolve(base, config.extends));
    for (const ref of (config?.references ?? []) as { path: string }[]) {
      const target = resolve(base, ref.path);
      visit(target.endsWith('.json') ? target : join(target, 'tsconfig.json'));
    }
  };
  visit(resolve(root, entry));
  return [...seen];
}
