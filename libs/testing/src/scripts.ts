import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from './prng';

/** Reasoning blocks in the formats the parser accepts, for scripted models in tests. */
export const macroReasoning = (delivery: 'DONE' | 'NEEDS_WORK' = 'NEEDS_WORK') =>
  [
    '<ide_reasoning>',
    '## Analyze',
    'The user wants notes about the project.',
    '## Research',
    'Read README.md.',
    '## Plan',
    '1. Read README.md 2. Write NOTES.md',
    '## Reflect',
    'The README may be short.',
    '## Action',
    'read_file README.md',
    '## Delivery',
    delivery,
    '</ideasoning>'.replace('ideasoning', 'ide_reasoning'),
  ].join('\n');

export const microReasoning = (next: string, delivery: 'DONE' | 'NEEDS_WORK' = 'NEEDS_WORK') =>
  [
    '<ide_reasoning>',
    `- Plan delta: none`,
    `- Next action: ${next}`,
    `- Known risks: none`,
    `- Delivery: ${delivery}`,
    '</ide_reasoning>',
  ].join('\n');

/** Counts the tool results a chat completion request carries: how far a scripted agent has got. */
export const toolResultsIn = (body: { messages?: { role: string }[] }): number =>
  (body.messages ?? []).filter((m) => m.role === 'tool').length;

export const QA_PASS_REPORT = JSON.stringify({ verdict: 'pass', summary: 'The notes match the README.', findings: [] });

interface ScriptRequest {
  stage?: string;
  body: { messages?: { role: string }[] };
}

/**
 * The reference agent of the run-loop tests: plans, reads README.md, writes NOTES.md, declares the
 * work done, passes the delivery gate and gets a passing QA report.
 */
export function readWriteAgentScript(request: ScriptRequest) {
  const done = toolResultsIn(request.body);
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will read the README, then write notes.` };
    case 'act':
    case 'tool_followup':
      if (done === 0)
        return {
          content: microReasoning('read README.md'),
          toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } }],
        };
      if (done === 1)
        return {
          content: microReasoning('write NOTES.md'),
          toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'NOTES.md', content: 'Sample project notes.\n' } }],
        };
      return { content: `${microReasoning('finish', 'DONE')}\nWrote NOTES.md from the README.` };
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nThe notes are written.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

export interface ToolLoopOptions {
  /** Rounds of act / tool_followup between the warmup and the final answer; round n reads file n. */
  rounds: number;
  /** About how many bytes each file holds, and so each tool result. */
  outputBytes: number;
}

/** The file round `n` (0-based) reads: `src/module-001.ts`, `src/module-002.ts`, … */
export const toolLoopFile = (round: number): string => `src/module-${String(round + 1).padStart(3, '0')}.ts`;

const NOUNS = ['order', 'invoice', 'customer', 'session', 'report', 'payment', 'account', 'ticket', 'shipment', 'catalog'];
const VERBS = ['load', 'save', 'validate', 'merge', 'render', 'archive', 'refresh', 'resolve', 'schedule', 'export'];

const capital = (word: string) => word[0].toUpperCase() + word.slice(1);

/** One function of plausible TypeScript, different for every seed. */
function sourceBlock(next: () => number, index: number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const noun = pick(NOUNS);
  const verb = pick(VERBS);
  const type = capital(noun);
  const limit = 10 + Math.floor(next() * 90);
  return [
    `/** ${capital(verb)}s ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun} and reports what changed; at most ${limit} entries are kept per call. */`,
    `export async function ${verb}${type}${index}(store: Store<${type}>, id: string, options: Options = {}): Promise<Result<${type}>> {`,
    `  const current = await store.get(id);`,
    `  if (!current) return { ok: false, reason: \`no ${noun} \${id}\` };`,
    `  const entries = current.entries.slice(-${limit}).filter((entry) => entry.updatedAt >= (options.since ?? 0));`,
    `  const next = { ...current, entries, revision: current.revision + 1 };`,
    `  await store.put(id, next, { expectedRevision: current.revision });`,
    `  return { ok: true, value: next, changed: entries.length !== current.entries.length };`,
    `}`,
    '',
  ].join('\n');
}

/** The text of round `round`'s file: a header naming it, then functions until it is about `bytes` long. */
export function toolLoopSource(round: number, bytes: number): string {
  const next = prng(round + 1);
  const parts = [
    `// ${toolLoopFile(round)}: module ${round + 1} of the generated project.`,
    `import { Options, Result, Store } from './shared';`,
    '',
  ];
  let length = parts.join('\n').length;
  for (let index = 0; length < bytes; index++) {
    const block = sourceBlock(next, index);
    parts.push(block);
    length += block.length + 1;
  }
  return parts.join('\n');
}

/** Writes the project a long tool loop reads: one file per round, each about `outputBytes` long, the same every time. */
export function writeToolLoopProject(root: string, { rounds, outputBytes }: ToolLoopOptions): string[] {
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'README.md'), `# Generated project\n${rounds} modules under src/, one service each.\n`);
  return Array.from({ length: rounds }, (_, round) => {
    const path = toolLoopFile(round);
    writeFileSync(join(root, path), toolLoopSource(round, outputBytes));
    return path;
  });
}

const ROUND_OF_FILE = /^\/\/ src\/module-(\d+)\.ts:/;

/**
 * The rounds a request shows done: the module named at the head of its latest tool result (which stays
 * verbatim when older results are compacted), or, for other tool results, how many there are.
 */
function roundsDone(body: ScriptRequest['body']): number {
  const messages = (body.messages ?? []) as { role: string; content?: unknown }[];
  const last = messages.findLast((m) => m.role === 'tool');
  if (!last) return 0;
  const named = ROUND_OF_FILE.exec(String(last.content ?? ''));
  return named ? Number(named[1]) : toolResultsIn(body);
}

/**
 * A long tool loop, for measuring how a run's log and its requests grow: warmup, then `rounds` act /
 * tool_followup steps each reading the next file of `writeToolLoopProject`'s project, then the answer
 * with Delivery DONE, a DONE delivery check and a passing QA report. The run needs a tool-loop bound
 * (`maxToolIterations`) of at least `rounds`.
 */
export function longToolLoopScript({ rounds, outputBytes }: ToolLoopOptions) {
  return (request: ScriptRequest) => {
    switch (request.stage) {
      case 'warmup':
        return { content: `${macroReasoning()}\nI will read the ${rounds} modules under src/ one by one, then summarise them.` };
      case 'act':
      case 'tool_followup': {
        const done = roundsDone(request.body);
        if (done < rounds) {
          const path = toolLoopFile(done);
          return {
            content: microReasoning(`read ${path}`),
            toolCalls: [{ id: `call_${done + 1}`, name: 'read_file', arguments: { path } }],
          };
        }
        return {
          content: `${microReasoning('finish', 'DONE')}\nRead all ${rounds} modules (about ${outputBytes} bytes each): each exports one service over a store.`,
        };
      }
      case 'delivery_check':
        return { content: `${microReasoning('hand over', 'DONE')}\nEvery module was read and summarised.` };
      case 'qa_review':
        return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
      default:
        return { status: 500, content: `unexpected stage ${request.stage}` };
    }
  };
}
