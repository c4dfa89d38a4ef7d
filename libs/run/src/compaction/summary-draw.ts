import { DIGEST_SECTIONS, EventRange, EventRef, SummarySection, SummarySectionName } from '@stagecraft/contracts';
import type { SourcedMessage, SourcedOutcome } from '@stagecraft/contracts';
import { clip, meaningful } from './clip';

/** The tool each result answered, from the assistant message that asked for it. */
function toolNames(messages: readonly SourcedMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const { message } of messages)
    for (const call of message.toolCalls ?? []) names.set(call.id, `${call.name} ${clip(call.arguments, 80)}`);
  return names;
}

/** An item drawn for a section and the events it came from (one event, or what an earlier run's digest cited). */
export interface DrawnItem {
  text: string;
  origin: EventRange;
}
type Drawn = Record<SummarySectionName, DrawnItem[]>;

/** The items the messages and outcomes give each section, oldest first, each with the event it came from. */
export function drawItems(messages: readonly SourcedMessage[], outcomes: readonly SourcedOutcome[]): Drawn {
  const drawn: Drawn = { goals: [], decisions: [], currentPlan: [], openIssues: [], toolOutputs: [] };
  const add = (section: SummarySectionName, text: string, ref: EventRef) => {
    const item = clip(text);
    if (item) drawn[section].push({ text: item, origin: { stream: ref.stream, from: ref.revision, to: ref.revision } });
  };
  const tools = toolNames(messages);
  for (const m of messages) {
    const { role, content, toolCalls, toolCallId } = m.message;
    // An earlier run's digest: its items keep the run events they cite; the message's text is only how the model reads them.
    if (m.digest) for (const name of DIGEST_SECTIONS) drawn[name].push(...digestItems(m.digest[name], m));
    else if (m.kind === 'user_input' || (m.kind === undefined && role === 'user')) add('goals', content, m);
    else if (m.kind === 'correction') add('openIssues', `Correction: ${content}`, m);
    else if (role === 'tool') add('toolOutputs', `${tools.get(toolCallId ?? '') ?? 'tool'} → ${content}`, m);
    else if (role === 'assistant' && !toolCalls?.length && meaningful(clip(content))) add('decisions', `Answered: ${content}`, m);
  }
  for (const o of outcomes) {
    const { plan_delta, next_action, known_risks, delivery_state } = o.outcome;
    if (meaningful(plan_delta)) add('decisions', plan_delta, o);
    if (meaningful(known_risks)) add('openIssues', `Risk: ${known_risks}`, o);
    add('currentPlan', `Next: ${next_action} (delivery ${delivery_state})`, o);
  }
  return drawn;
}

/** A digest section's items, clipped like any item; one without a cited origin cites the message that carried it. */
const digestItems = (section: SummarySection, carrier: EventRef): DrawnItem[] =>
  section.items.flatMap((text, i) => {
    const item = clip(text);
    const origin = section.origins?.[i] ?? { stream: carrier.stream, from: carrier.revision, to: carrier.revision };
    return item ? [{ text: item, origin }] : [];
  });
