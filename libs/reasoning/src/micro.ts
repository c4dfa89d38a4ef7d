import { ReasoningOutcome } from '@stagecraft/contracts';
import { parseDeliveryState } from './delivery';

export const MIN_BULLETS = 3;
export const MAX_BULLETS = 8;

export type MicroResult =
  { ok: true; outcome: ReasoningOutcome } | { ok: false; problem: 'too_short' | 'too_long' | 'malformed'; detail: string };

const BULLET = /^\s*(?:[-*•+]|\d+[.)])\s+(.*)$/;
const LABEL = /^(plan\s*delta|next\s*actions?|known\s*risks?|delivery)\s*:\s*(.*)$/i;
// `**Plan delta:**`, `**Plan delta**:` and `` `Plan delta:` `` are the same label as plain `Plan delta:`.
const WRAPPED_LABEL = /^(\*\*|__|`)([^*_`:]{1,20}:?)\s*\1\s*/;

function unwrapLabel(text: string): string {
  const unwrapped = text.replace(WRAPPED_LABEL, '$2 ');
  return LABEL.test(unwrapped) ? unwrapped : text;
}

type Label = 'plan_delta' | 'next_action' | 'known_risks' | 'delivery';

function labelOf(raw: string): Label {
  const word = raw.toLowerCase().replace(/\s+/g, '');
  if (word === 'plandelta') return 'plan_delta';
  if (word.startsWith('nextaction')) return 'next_action';
  if (word.startsWith('knownrisk')) return 'known_risks';
  return 'delivery';
}

/**
 * Bullets as written (`-`, `*`, `•`, `1.`). A labelled line without a marker still counts as a bullet,
 * and an unmarked line after a bullet continues it.
 */
export function splitBullets(body: string): string[] {
  const bullets: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const marked = BULLET.exec(line);
    const trimmed = unwrapLabel(line.trim());
    if (marked) bullets.push(unwrapLabel(marked[1].trim()));
    else if (LABEL.test(trimmed)) bullets.push(trimmed);
    else if (trimmed.length > 0 && bullets.length > 0) bullets[bullets.length - 1] += ` ${trimmed}`;
  }
  return bullets;
}

export function parseMicro(body: string): MicroResult {
  const bullets = splitBullets(body);
  if (bullets.length < MIN_BULLETS)
    return { ok: false, problem: 'too_short', detail: `${MIN_BULLETS} to ${MAX_BULLETS} bullets required, found ${bullets.length}` };
  if (bullets.length > MAX_BULLETS)
    return { ok: false, problem: 'too_long', detail: `${MIN_BULLETS} to ${MAX_BULLETS} bullets required, found ${bullets.length}` };
  const labelled = new Map<Label, string>();
  const notes: string[] = [];
  for (const bullet of bullets) {
    const match = LABEL.exec(bullet);
    const label = match ? labelOf(match[1]) : null;
    // The first bullet with a label fills the field; a repeat is kept as a note rather than lost.
    if (match && label && !labelled.has(label)) labelled.set(label, match[2].trim());
    else notes.push(bullet);
  }
  const delivery = labelled.get('delivery');
  const state = delivery === undefined ? 'NEEDS_WORK' : parseDeliveryState(delivery);
  if (state === null) return { ok: false, problem: 'malformed', detail: `Delivery must be NEEDS_WORK or DONE, got '${delivery}'` };
  return {
    ok: true,
    outcome: {
      plan_delta: labelled.get('plan_delta') ?? '',
      next_action: labelled.get('next_action') ?? '',
      known_risks: labelled.get('known_risks') ?? '',
      delivery_state: state,
      notes,
    },
  };
}
