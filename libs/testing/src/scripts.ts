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
