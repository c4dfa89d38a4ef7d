import { PromptVariables, StagecraftError } from '@stagecraft/contracts';
import { parseTemplate, PromptVariable, renderTemplate, Segment } from './variables';

export interface PromptSource {
  readonly id: string;
  readonly body: string;
}

export interface Prompt {
  readonly id: string;
  readonly body: string;
  /** Variables the body interpolates, in order of first use. */
  readonly variables: readonly PromptVariable[];
}

export interface PromptRepository {
  /** All ids, sorted. */
  ids(): readonly string[];
  has(id: string): boolean;
  get(id: string): Prompt;
  render(id: string, values: PromptVariables): string;
  /** The variables a composition of these prompts needs, in order of first use. */
  variablesOf(ids: readonly string[]): PromptVariable[];
}

/** Ids are paths under prompts/ without `.md`: lower-case segments joined by `/`. */
const PROMPT_ID = /^[a-z0-9_]+(\/[a-z0-9_]+)*$/;

interface Compiled extends Prompt {
  readonly segments: readonly Segment[];
}

function compile(source: PromptSource): Compiled {
  if (!PROMPT_ID.test(source.id)) {
    throw new StagecraftError('VALIDATION', `prompt id "${source.id}" is not a lower-case path like "agent/reasoning_macro"`, [
      { path: [source.id], message: 'invalid prompt id' },
    ]);
  }
  // Line endings are normalised so a checkout with CRLF gives the same bytes, and so the same hash.
  const body = source.body.replace(/\r\n?/g, '\n').trim();
  if (body.length === 0) throw new StagecraftError('VALIDATION', `prompt "${source.id}" is empty`, [{ path: [source.id], message: 'empty body' }]);
  const segments = parseTemplate(source.id, body);
  const variables = [...new Set(segments.flatMap((s) => ('variable' in s ? [s.variable] : [])))];
  return { id: source.id, body, variables, segments };
}

/** Pure: builds and validates the repository from sources; any bad prompt fails the whole load. */
export function createPromptRepository(sources: readonly PromptSource[]): PromptRepository {
  const prompts = new Map<string, Compiled>();
  for (const source of sources) {
    if (prompts.has(source.id)) {
      throw new StagecraftError('VALIDATION', `prompt "${source.id}" is defined twice`, [{ path: [source.id], message: 'duplicate id' }]);
    }
    prompts.set(source.id, compile(source));
  }
  const ids = Object.freeze([...prompts.keys()].sort());

  const get = (id: string): Compiled => {
    const prompt = prompts.get(id);
    if (prompt === undefined) throw new StagecraftError('NOT_FOUND', `no prompt with id "${id}"`, [{ path: [id], message: 'unknown prompt id' }]);
    return prompt;
  };

  return {
    ids: () => ids,
    has: (id) => prompts.has(id),
    get: (id) => {
      const { segments: _segments, ...prompt } = get(id);
      return prompt;
    },
    render: (id, values) => renderTemplate(id, get(id).segments, values),
    variablesOf: (list) => [...new Set(list.flatMap((id) => get(id).variables))],
  };
}
