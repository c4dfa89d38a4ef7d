import { ReasoningOutcome } from '@stagecraft/contracts';

/**
 * The compact form later requests carry instead of the reasoning itself. Every field is forced onto one
 * line and any reasoning tag is defused, so the rendering can never smuggle a block back in.
 */
export function renderOutcome(outcome: ReasoningOutcome): string {
  const lines = [
    `Plan delta: ${field(outcome.plan_delta)}`,
    `Next action: ${field(outcome.next_action)}`,
    `Known risks: ${field(outcome.known_risks)}`,
    `Delivery: ${outcome.delivery_state}`,
  ];
  const notes = (outcome.notes ?? []).map(field).filter((note) => note !== 'none');
  if (notes.length > 0) lines.push(`Notes: ${notes.join('; ')}`);
  return lines.join('\n');
}

function field(value: string): string {
  const flat = value
    .replace(/<\s*(\/?)\s*ide_reasoning\s*>/gi, '$1ide_reasoning')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > 0 ? flat : 'none';
}
