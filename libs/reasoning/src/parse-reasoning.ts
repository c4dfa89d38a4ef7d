import { ReasoningOutcome, StagecraftError } from '@stagecraft/contracts';
import { findBlocks, stripReasoning } from './block';
import { parseMacro } from './macro';
import { parseMicro } from './micro';

export type ReasoningFormat = 'macro' | 'micro';
export type ReasoningProblem = 'missing' | 'malformed' | 'too_short' | 'too_long' | 'missing_sections';

export type ParsedReasoning =
  | { ok: true; format: ReasoningFormat; block: string; outcome: ReasoningOutcome; visible: string }
  | { ok: false; format: ReasoningFormat; problem: ReasoningProblem; detail: string; visible: string };

/**
 * Reads the first `<ide_reasoning>` block in the format the stage asked for. Lenient about whitespace
 * and case; strict about the block being there, closed, and holding what the format requires.
 * `visible` is always the text without any block, so a failed parse never leaks reasoning either.
 */
export function parseReasoning(text: string, format: ReasoningFormat): ParsedReasoning {
  const visible = stripReasoning(text);
  const [first] = findBlocks(text);
  const fail = (problem: ReasoningProblem, detail: string): ParsedReasoning => ({ ok: false, format, problem, detail, visible });
  if (first === undefined) return fail('missing', 'no <ide_reasoning> block found');
  if (!first.terminated) return fail('malformed', 'the <ide_reasoning> block is never closed with </ide_reasoning>');
  const result = parseBody(first.body, format);
  if (!result.ok) return fail(result.problem, result.detail);
  return { ok: true, format, block: first.text, outcome: result.outcome, visible };
}

function parseBody(body: string, format: ReasoningFormat) {
  switch (format) {
    case 'macro':
      return parseMacro(body);
    case 'micro':
      return parseMicro(body);
    default: {
      const unreachable: never = format;
      throw new StagecraftError('VALIDATION', `unknown reasoning format ${String(unreachable)}`);
    }
  }
}
