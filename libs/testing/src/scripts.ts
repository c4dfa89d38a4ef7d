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
  ['<ide_reasoning>', `- Plan delta: none`, `- Next action: ${next}`, `- Known risks: none`, `- Delivery: ${delivery}`, '</ide_reasoning>'].join('\n');

/** Counts the tool results a chat completion request carries: how far a scripted agent has got. */
export const toolResultsIn = (body: { messages?: { role: string }[] }): number => (body.messages ?? []).filter((m) => m.role === 'tool').length;
