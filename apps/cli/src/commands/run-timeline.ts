import { ChatMessage, runEvents, streams, toFeedEvent } from '@stagecraft/contracts';
import { openEventStore, readEvents } from '@stagecraft/event-store';
import type { EventReader } from '@stagecraft/event-store';
import { describeEvent } from './describe-event';
import { DIFF_LINES_SHOWN, Paint, paint, printable, renderChange } from './diff-view';

/** The messages each model request of a run sent, rebuilt from the stored prompt bodies. */
export type RestorePrompts = (reader: EventReader, runId: string) => Promise<{ requestId: string; messages: ChatMessage[] }[]>;

const clipped = (text: string, max = 100) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * The timeline of one run, one line per event (or its JSON); null when the log has no such run. With
 * `restore`, each model request also shows the messages it sent: a line per message, or a
 * `messages` field next to the event's JSON. Reading the log alone needs none of the services'
 * modules, so `runs show` starts without them.
 */
export interface TimelineView {
  /** Every diff in full; otherwise each is clipped to DIFF_LINES_SHOWN lines. */
  diffs?: boolean;
  style?: Paint;
}

/** A message row: who wrote it and the start of what it says (a tool result's text is its call's output, shown there). */
function messageLine(data: { role: string; kind?: string; content: string; outputOf?: string }): string {
  const who = data.kind && data.kind !== 'assistant' && data.kind !== 'user_input' ? `${data.role} (${data.kind})` : data.role;
  if (data.outputOf) return `${who}: (the output of ${data.outputOf})`;
  return `${who}: ${clipped(data.content) || '(no text)'}`;
}

export async function runTimeline(
  reader: EventReader,
  runId: string,
  json: boolean,
  restore?: RestorePrompts,
  view: TimelineView = {},
): Promise<string[] | null> {
  const events = await readEvents(reader, streams.run(runId), runEvents);
  if (events.length === 0) return null;
  const sent = new Map(restore ? (await restore(reader, runId)).map((r) => [r.requestId, r.messages]) : []);
  const t0 = Date.parse(events[0].metadata.occurredAt);
  return events.flatMap((event) => {
    const messages = event.type === 'ModelRequested' ? sent.get(event.data.requestId) : undefined;
    if (json) return [JSON.stringify({ type: event.type, data: event.data, metadata: event.metadata, ...(messages ? { messages } : {}) })];
    const offset = `+${((Date.parse(event.metadata.occurredAt) - t0) / 1000).toFixed(3)}s`.padStart(10);
    // Described as a client sees it: the same line as `chat` printed live.
    const shown = toFeedEvent({ ...event, streamId: streams.run(runId) });
    const described = (shown && describeEvent(shown)?.trim()) || (event.type === 'MessageAppended' ? messageLine(event.data) : '');
    const line = printable(`${offset}  ${event.type.padEnd(18)} ${described}`);
    const style = view.style ?? paint(false);
    const clip = view.diffs ? undefined : { maxLines: DIFF_LINES_SHOWN, runId };
    const changes = event.type === 'ToolCallCompleted' ? (event.data.changes ?? []) : [];
    const answer = event.type === 'RunCompleted' && event.data.answer ? ['', 'answer:', printable(event.data.answer)] : [];
    return [
      line,
      ...(messages ?? []).map((m) => `${' '.repeat(34)}[${m.role}] ${printable(clipped(m.content))}`),
      ...changes.flatMap((change) => renderChange(change, style, clip).map((l) => `${' '.repeat(10)}${l}`)),
      ...answer,
    ];
  });
}

/** `stagecraft runs show`: the timeline read straight from the log. */
export async function showRun(
  runId: string,
  store: string,
  json: boolean,
  restore?: RestorePrompts,
  view: TimelineView = {},
): Promise<boolean> {
  const events = openEventStore(store);
  try {
    const lines = await runTimeline(events, runId, json, restore, view);
    if (lines === null) {
      process.stderr.write(`stagecraft: no run ${runId} in ${store}\n`);
      return false;
    }
    for (const line of lines) process.stdout.write(`${line}\n`);
    return true;
  } finally {
    await events.close();
  }
}
