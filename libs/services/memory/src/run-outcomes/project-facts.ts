import { createHash } from 'node:crypto';
import type { EventData } from '@stagecraft/contracts';

export type CommandKind = 'build' | 'test';

/** A build or test command a run ran and that exited 0: a fact about the project that proved true. */
export interface ProjectFact {
  kind: CommandKind;
  /** The command line as run: the executable and its arguments. */
  commandLine: string;
  memoryId: string;
  content: string;
  tags: string[];
}

/** The events a fact is read from, as the run stream holds them. */
export type CommandEvent =
  | { type: 'ToolCallRequested'; data: EventData<'ToolCallRequested'> }
  | { type: 'ToolCallCompleted'; data: EventData<'ToolCallCompleted'> }
  | { type: string; data: unknown };

const MAX_ARGS = 6;
/**
 * Arguments kept in a fact are plain tokens (a script, a flag, a path): the command line goes into later
 * prompts, so one that carries prose, quotes or shell syntax is not retained at all.
 */
const PLAIN_TOKEN = /^[\w@./:=+,-]{1,80}$/;
const SCRIPT_RUNNERS = new Set(['npm', 'yarn', 'pnpm', 'bun']);
const BUILD_WORD = /build|compile/;
const TEST_WORD = /test|spec|^check$/;

const kindOfWord = (word: string | undefined): CommandKind | undefined =>
  word === undefined ? undefined : TEST_WORD.test(word) ? 'test' : BUILD_WORD.test(word) ? 'build' : undefined;

/** Whether a command line builds or tests the project, by the conventions of its tool; undefined when neither. */
export function commandKind(command: string, args: readonly string[]): CommandKind | undefined {
  const [first, second] = args;
  if (SCRIPT_RUNNERS.has(command)) {
    if (first === 'test' || first === 't') return 'test';
    return first === 'run' || first === 'run-script' ? kindOfWord(second) : kindOfWord(first);
  }
  switch (command) {
    case 'tsc':
      return 'build';
    case 'jest':
    case 'vitest':
    case 'pytest':
      return 'test';
    case 'npx':
      return first === 'tsc' ? 'build' : first === 'jest' || first === 'vitest' ? 'test' : undefined;
    case 'make':
      return first === undefined || first.startsWith('-') ? 'build' : (kindOfWord(first) ?? (first === 'all' ? 'build' : undefined));
    case 'node':
      return first === '--test' ? 'test' : undefined;
    case 'python3':
    case 'python':
      return first === '-m' && (second === 'pytest' || second === 'unittest') ? 'test' : undefined;
    case 'cargo':
    case 'go':
    case 'dotnet':
    case 'mvn':
    case 'gradle':
      return kindOfWord(first);
    default:
      return undefined;
  }
}

/** One id per project and command line: the same command proved again retains nothing new. */
export const projectFactMemoryId = (kind: CommandKind, commandLine: string): string =>
  `project-fact-${createHash('sha256').update(`${kind}\u0000${commandLine}`).digest('hex').slice(0, 24)}`;

export function projectFactContent(kind: CommandKind, commandLine: string): string {
  return kind === 'test'
    ? `Test command (runs the tests; it ran and passed): ${commandLine}`
    : `Build command (builds the code; it ran and succeeded): ${commandLine}`;
}

/**
 * The build and test commands a run's `run_command` calls ran successfully (exit 0, not interrupted),
 * in the order they first succeeded, each once. Deterministic: read from the run's events alone.
 */
export function projectFacts(events: readonly CommandEvent[]): ProjectFact[] {
  const requested = new Map<string, Record<string, unknown>>();
  const facts = new Map<string, ProjectFact>();
  for (const event of events) {
    if (event.type === 'ToolCallRequested') {
      const data = event.data as EventData<'ToolCallRequested'>;
      if (data.tool === 'run_command') requested.set(data.callId, data.arguments);
      continue;
    }
    if (event.type !== 'ToolCallCompleted') continue;
    const data = event.data as EventData<'ToolCallCompleted'>;
    const args = requested.get(data.callId);
    if (data.tool !== 'run_command' || !data.ok || data.interrupted || !args) continue;
    const fact = factOf(args);
    if (fact && !facts.has(fact.memoryId)) facts.set(fact.memoryId, fact);
  }
  return [...facts.values()];
}

function factOf({ command, args }: Record<string, unknown>): ProjectFact | undefined {
  const list = args === undefined ? [] : args;
  if (typeof command !== 'string' || !PLAIN_TOKEN.test(command) || !Array.isArray(list) || list.length > MAX_ARGS) return undefined;
  if (!list.every((a): a is string => typeof a === 'string' && PLAIN_TOKEN.test(a))) return undefined;
  const kind = commandKind(command, list);
  if (!kind) return undefined;
  const commandLine = [command, ...list].join(' ');
  return {
    kind,
    commandLine,
    memoryId: projectFactMemoryId(kind, commandLine),
    content: projectFactContent(kind, commandLine),
    tags: ['project_fact', `${kind}_command`],
  };
}
