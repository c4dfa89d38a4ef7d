import { PromptVariables, StagecraftError } from '@stagecraft/contracts';

/** Seed 002 §5.3: the only names a prompt may interpolate. */
export const PROMPT_VARIABLES = ['project_root', 'user_input', 'tool_summary', 'last_step_outcome'] as const;
export type PromptVariable = (typeof PROMPT_VARIABLES)[number];

export function isPromptVariable(name: string): name is PromptVariable {
  return (PROMPT_VARIABLES as readonly string[]).includes(name);
}

/** A body split once at load time into literal text and variable slots, so rendering is a single pass. */
export type Segment = { literal: string } | { variable: PromptVariable };

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

export function parseTemplate(promptId: string, body: string): Segment[] {
  const segments: Segment[] = [];
  const unknown: string[] = [];
  let last = 0;
  for (const match of body.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (!isPromptVariable(name)) unknown.push(name);
    else {
      segments.push({ literal: body.slice(last, match.index) }, { variable: name });
      last = match.index + match[0].length;
    }
  }
  segments.push({ literal: body.slice(last) });
  if (unknown.length > 0) {
    throw new StagecraftError(
      'VALIDATION',
      `prompt "${promptId}" uses unknown variable(s) ${unknown.map((n) => `{{${n}}}`).join(', ')}; allowed: ${PROMPT_VARIABLES.join(', ')}`,
      unknown.map((name) => ({ path: [promptId, name], message: `unknown variable {{${name}}}` })),
    );
  }
  // A `{{` that did not form a placeholder is a typo that would otherwise reach the model verbatim.
  const stray = segments.find((s) => 'literal' in s && s.literal.includes('{{'));
  if (stray !== undefined) {
    throw new StagecraftError('VALIDATION', `prompt "${promptId}" has an unterminated {{ }} placeholder`, [
      { path: [promptId], message: 'unterminated placeholder' },
    ]);
  }
  return segments;
}

export function renderTemplate(promptId: string, segments: readonly Segment[], values: PromptVariables): string {
  let out = '';
  for (const segment of segments) {
    if ('literal' in segment) {
      out += segment.literal;
      continue;
    }
    const value = values[segment.variable];
    if (value === undefined) {
      throw new StagecraftError('VALIDATION', `prompt "${promptId}" needs a value for {{${segment.variable}}} and none was given`, [
        { path: ['variables', segment.variable], message: `required by prompt "${promptId}"` },
      ]);
    }
    out += value;
  }
  return out;
}
