import { ChatMessage, EventRange, HistorySummary, SUMMARY_SECTIONS, SummarySectionName } from '@stagecraft/contracts';

const HEADINGS: Record<SummarySectionName, string> = {
  goals: 'Goals',
  decisions: 'Decisions',
  currentPlan: 'Current plan',
  openIssues: 'Open issues',
  toolOutputs: 'Important tool outputs',
};

const rangeText = (r: EventRange) => (r.from === r.to ? `${r.stream}@${r.from}` : `${r.stream}@${r.from}-${r.to}`);

/** The summary as the model reads it: one message standing where the older messages were. */
export function renderSummary(summary: HistorySummary): string {
  const sections = SUMMARY_SECTIONS.map((name) => {
    const { items, sources, origins } = summary[name];
    const cited = sources.length ? ` (from ${sources.map(rangeText).join(', ')})` : '';
    const origin = (i: number) => (origins?.[i] ? ` [${rangeText(origins[i])}]` : '');
    const lines = items.length ? items.map((item, i) => `- ${item}${origin(i)}`) : ['- none'];
    return [`## ${HEADINGS[name]}${cited}`, ...lines].join('\n');
  });
  return ['Summary of the earlier conversation (older messages were compacted into it).', ...sections].join('\n\n');
}

const rendered = new WeakMap<HistorySummary, ChatMessage>();

/** The summary as a message; the same summary object always gives the same message object. */
export function summaryMessage(summary: HistorySummary): ChatMessage {
  let message = rendered.get(summary);
  if (!message) {
    message = { role: 'user', content: renderSummary(summary) };
    rendered.set(summary, message);
  }
  return message;
}
