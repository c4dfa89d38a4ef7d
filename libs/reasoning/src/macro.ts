import { ReasoningOutcome } from '@stagecraft/contracts';
import { oneLine, parseDeliveryState } from './delivery';

export const MACRO_SECTIONS = ['Analyze', 'Research', 'Plan', 'Reflect', 'Action', 'Delivery'] as const;
export type MacroSection = (typeof MACRO_SECTIONS)[number];

export type SectionResult =
  { ok: true; outcome: ReasoningOutcome } | { ok: false; problem: 'missing_sections' | 'malformed'; detail: string };

/**
 * A section starts at a `## Name` heading (any level, colon optional) or a `Name:` line; list markers
 * and bold around the name are tolerated. Text on the same line after the colon belongs to it.
 */
const SECTION_START =
  /^\s*(?:(#{1,6})\s*|(?:[-*•+]\s+)?)(?:\*\*|__)?(analy[sz]e|research|plan|reflect|action|delivery)\b(?:\*\*|__)?\s*(:)?(?:\*\*|__)?\s*(.*)$/i;

export function splitSections(body: string): Map<MacroSection, string> {
  const sections = new Map<MacroSection, string[]>();
  let current: string[] | null = null;
  for (const line of body.split(/\r?\n/)) {
    const match = SECTION_START.exec(line);
    const isStart = match !== null && (match[1] !== undefined || match[3] !== undefined);
    if (match && isStart) {
      const name = canonical(match[2]);
      // The first occurrence counts; a repeated heading's text stays with the section before it.
      if (!sections.has(name)) {
        current = [match[4]];
        sections.set(name, current);
        continue;
      }
    }
    current?.push(line);
  }
  return new Map(Array.from(sections, ([name, lines]) => [name, lines.join('\n').trim()]));
}

/** The pattern only matches section names, so every match maps to one; "Analyse" is the British spelling. */
function canonical(name: string): MacroSection {
  const lower = name.toLowerCase().replace('analyse', 'analyze');
  return MACRO_SECTIONS.find((section) => section.toLowerCase() === lower) ?? 'Analyze';
}

export function parseMacro(body: string): SectionResult {
  const sections = splitSections(body);
  const missing = MACRO_SECTIONS.filter((name) => !sections.get(name));
  if (missing.length > 0) {
    return { ok: false, problem: 'missing_sections', detail: `missing or empty sections: ${missing.join(', ')}` };
  }
  const delivery = sections.get('Delivery') ?? '';
  const state = parseDeliveryState(delivery);
  if (state === null) {
    return { ok: false, problem: 'malformed', detail: `Delivery must be NEEDS_WORK or DONE, got '${oneLine(delivery)}'` };
  }
  return {
    ok: true,
    outcome: {
      plan_delta: oneLine(sections.get('Plan') ?? ''),
      next_action: oneLine(sections.get('Action') ?? ''),
      known_risks: oneLine(sections.get('Reflect') ?? ''),
      delivery_state: state,
      notes: [],
    },
  };
}
