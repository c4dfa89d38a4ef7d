import { oneLine } from './conversation';

export interface StepThoughts {
  observation: string;
  planDelta: string;
  nextAction: string;
  knownRisks: string;
  delivery: 'DONE' | 'NEEDS_WORK';
}

/** A micro block of five bullets: one observation and the four labelled ones. */
export function microBlock(t: StepThoughts): string {
  const bullets = [
    oneLine(t.observation),
    `Plan delta: ${oneLine(t.planDelta)}`,
    `Next action: ${oneLine(t.nextAction)}`,
    `Known risks: ${oneLine(t.knownRisks)}`,
    `Delivery: ${t.delivery}`,
  ];
  return `<ide_reasoning>\n${bullets.map((b) => `- ${b}`).join('\n')}\n</ide_reasoning>`;
}

export function macroBlock(userInput: string): string {
  const request = userInput === '' ? 'The user gave no details.' : `The user asks: "${oneLine(userInput, 100)}"`;
  return [
    '<ide_reasoning>',
    `Analyze: ${request} A useful first result is an accurate picture of the project, written down inside it.`,
    'Research: the project root listing (what kind of project this is) and its README or main manifest (what it is for).',
    'Plan: 1) list the project root; 2) read the README, or the main manifest when there is none; 3) write STAGECRAFT_NOTES.md summarising what was read; 4) check the write result and report.',
    'Reflect: The README may be missing or out of date; the notes then rest on the file listing alone and say so.',
    "Action: list_dir on '.'",
    'Delivery: NEEDS_WORK',
    '</ide_reasoning>',
  ].join('\n');
}

/** The block (when reasoning is on) ahead of the text the user sees. */
export function withReasoning(reasoning: boolean, block: string, visible: string): string {
  return reasoning ? `${block}\n${visible}` : visible;
}
