import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest, ScriptedReply } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, macroReasoning } from '@stagecraft/testing';

/**
 * Where a planted fact sits. `goal` and `answer`: a turn's message and its final answer, the turn's
 * goal and outcome. `decision` and `tool`: a plan delta and the first line of a file read in the last
 * turn's run, before its compactions. `earlier-decision` and `earlier-tool`: the same in an earlier
 * turn's run, which later turns get through that turn's digest (docs/decisions/0053).
 */
export type FactKind = 'goal' | 'answer' | 'decision' | 'tool' | 'earlier-decision' | 'earlier-tool';
export const FACT_KINDS: readonly FactKind[] = ['goal', 'answer', 'decision', 'tool', 'earlier-decision', 'earlier-tool'];
/** Every kind counts: what earlier turns' runs decided and read is as much the conversation's as their goals. */
export const HEADLINE_KINDS: readonly FactKind[] = FACT_KINDS;

export interface Fact {
  kind: FactKind;
  /** A code that appears nowhere else, so finding it means the fact is there. */
  code: string;
}

export interface RetentionScenario {
  /** Turns of the conversation; the last one is the long run. */
  turns: number;
  /** Tool rounds of every turn but the last. */
  roundsPerTurn: number;
  /** Tool rounds of the last turn. */
  lastTurnRounds: number;
  /** Rounds of the last turn (from the first) whose file and plan delta carry a fact. */
  plantedRounds: number;
  /** About how many bytes each file read holds. */
  fileBytes: number;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** A code per place, different from every other: `fact-goal-t03-r00-k7` style, never a prefix of another. */
export const codeOf = (kind: FactKind, turn: number, round = 0): string =>
  `fact-${kind}-t${pad(turn)}-r${pad(round)}-${((turn * 31 + round * 7 + kind.length) % 97).toString(36)}x`;

const isLast = (s: RetentionScenario, turn: number) => turn === s.turns;
const roundsOf = (s: RetentionScenario, turn: number) => (isLast(s, turn) ? s.lastTurnRounds : s.roundsPerTurn);
const planted = (s: RetentionScenario, turn: number, round: number) => (isLast(s, turn) ? round <= s.plantedRounds : round === 1);

export const goalOf = (turn: number): string => `Turn ${turn}: check module group ${turn}; the ticket for it is ${codeOf('goal', turn)}.`;
export const answerOf = (turn: number): string => `Turn ${turn} done: group ${turn} is consistent, filed under ${codeOf('answer', turn)}.`;
export const filePath = (turn: number, round: number): string => `group-${pad(turn)}/file-${pad(round)}.ts`;

/** Every fact the scenario plants, in the order the conversation meets them. */
export function plantedFacts(s: RetentionScenario): Fact[] {
  const facts: Fact[] = [];
  for (let turn = 1; turn <= s.turns; turn++) {
    facts.push({ kind: 'goal', code: codeOf('goal', turn) });
    for (let round = 1; round <= roundsOf(s, turn); round++) {
      if (!planted(s, turn, round)) continue;
      facts.push({ kind: isLast(s, turn) ? 'tool' : 'earlier-tool', code: codeOf('tool', turn, round) });
      facts.push({ kind: isLast(s, turn) ? 'decision' : 'earlier-decision', code: codeOf('decision', turn, round) });
    }
    // The last turn's answer is written after the request that is measured.
    if (!isLast(s, turn)) facts.push({ kind: 'answer', code: codeOf('answer', turn) });
  }
  return facts;
}

/** Writes the files the scenario reads: a first line naming the file (and a fact where one is planted), then code. */
export function writeRetentionProject(root: string, s: RetentionScenario): void {
  for (let turn = 1; turn <= s.turns; turn++) {
    mkdirSync(join(root, `group-${pad(turn)}`), { recursive: true });
    for (let round = 1; round <= roundsOf(s, turn); round++) {
      const head = `// T${turn} R${round}: ${planted(s, turn, round) ? `the owner code is ${codeOf('tool', turn, round)}` : 'no owner code'}`;
      const lines = [head];
      for (let i = 0; lines.join('\n').length < s.fileBytes; i++)
        lines.push(`export const value${turn}_${round}_${i} = compute(${turn}, ${round}, ${i}); // keeps the group consistent`);
      writeFileSync(join(root, filePath(turn, round)), `${lines.join('\n')}\n`);
    }
  }
}

type Message = { role: string; content?: unknown; tool_calls?: { function?: { arguments?: string } }[] };
const messagesOf = (request: RecordedRequest): Message[] => (request.body?.messages ?? []) as Message[];

/** Everything the model reads in a request: each message's text and its tool calls' arguments. */
export function requestText(request: RecordedRequest): string {
  return messagesOf(request)
    .map((m) =>
      [
        typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''),
        ...(m.tool_calls ?? []).map((c) => c.function?.arguments ?? ''),
      ].join('\n'),
    )
    .join('\n');
}

export interface RetentionScore {
  kept: number;
  total: number;
  byKind: Record<FactKind, { kept: number; total: number }>;
  /** The codes not found, for reading what went. */
  lost: string[];
}

/** The share of `facts` whose code the text holds, over all and per kind. */
export function scoreRetention(facts: readonly Fact[], text: string, kinds: readonly FactKind[] = HEADLINE_KINDS): RetentionScore {
  const byKind = {} as RetentionScore['byKind'];
  for (const kind of FACT_KINDS) byKind[kind] = { kept: 0, total: 0 };
  const lost: string[] = [];
  for (const fact of facts) {
    const present = text.includes(fact.code);
    byKind[fact.kind].total += 1;
    if (present) byKind[fact.kind].kept += 1;
    else if (kinds.includes(fact.kind)) lost.push(fact.code);
  }
  const counted = kinds.map((kind) => byKind[kind]);
  return { kept: counted.reduce((n, k) => n + k.kept, 0), total: counted.reduce((n, k) => n + k.total, 0), byKind, lost };
}

const micro = (planDelta: string, next: string, delivery: 'DONE' | 'NEEDS_WORK' = 'NEEDS_WORK') =>
  [
    '<ide_reasoning>',
    `- Plan delta: ${planDelta}`,
    `- Next action: ${next}`,
    '- Known risks: none',
    `- Delivery: ${delivery}`,
    '</ide_reasoning>',
  ].join('\n');

const ROUND_MARK = /^\/\/ T(\d+) R(\d+):/;

/** The round of `turn` the request shows done: the file named at the head of its latest tool result. */
function roundsDone(request: RecordedRequest, turn: number): number {
  const last = messagesOf(request).findLast((m) => m.role === 'tool');
  const mark = ROUND_MARK.exec(typeof last?.content === 'string' ? last.content : '');
  return mark && Number(mark[1]) === turn ? Number(mark[2]) : 0;
}

/**
 * The scripted model of the scenario, for the turn `turn()` says is running: it plans, reads its
 * turn's files one a round (stating a decision where one is planted), answers, passes the delivery
 * check and the review.
 */
export function retentionScript(s: RetentionScenario, turn: () => number): (request: RecordedRequest) => ScriptedReply {
  return (request) => {
    const t = turn();
    switch (request.stage) {
      case 'warmup':
        return { content: `${macroReasoning()}\nI will read the ${roundsOf(s, t)} files of group ${t}, then report.` };
      case 'act':
      case 'tool_followup': {
        const done = roundsDone(request, t);
        if (done < roundsOf(s, t)) {
          const round = done + 1;
          const decision = planted(s, t, round) ? `keep the pool size of group ${t} at ${codeOf('decision', t, round)}` : 'none';
          return {
            content: micro(decision, `read ${filePath(t, round)}`),
            toolCalls: [{ id: `call_${t}_${round}`, name: 'read_file', arguments: { path: filePath(t, round) } }],
          };
        }
        return { content: `${micro('none', 'finish', 'DONE')}\n${answerOf(t)}` };
      }
      case 'delivery_check':
        return { content: `${micro('none', 'hand over', 'DONE')}\n${answerOf(t)}` };
      case 'qa_review':
        return { content: `${micro('none', 'report', 'DONE')}\n${QA_PASS_REPORT}` };
      default:
        return { status: 500, content: `unexpected stage ${request.stage}` };
    }
  };
}
