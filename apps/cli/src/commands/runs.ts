import { runEvents, streams } from '@stagecraft/contracts';
import { DEFAULT_RUN_LIMITS, auditRun, replayRun } from '@stagecraft/run';
import { openEventStore, readEvents } from '@stagecraft/event-store';
import type { EventReader } from '@stagecraft/event-store';
import { describeEvent } from './describe-event';

/** The timeline of one run, one line per event (or its JSON); null when the log has no such run. */
export async function runTimeline(reader: EventReader, runId: string, json: boolean): Promise<string[] | null> {
  const events = await readEvents(reader, streams.run(runId), runEvents);
  if (events.length === 0) return null;
  const t0 = Date.parse(events[0].metadata.occurredAt);
  return events.map((event) => {
    if (json) return JSON.stringify({ type: event.type, data: event.data, metadata: event.metadata });
    const offset = `+${((Date.parse(event.metadata.occurredAt) - t0) / 1000).toFixed(3)}s`.padStart(10);
    return `${offset}  ${event.type.padEnd(18)} ${describeEvent(event)?.trim() ?? ''}`;
  });
}

/** `stagecraft runs show`: the timeline read straight from the log. */
export async function showRun(runId: string, store: string, json: boolean): Promise<boolean> {
  const events = openEventStore(store);
  try {
    const lines = await runTimeline(events, runId, json);
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

/** `stagecraft runs replay`: the run decided again from its own log; true when every event comes out the same. */
export async function replayStoredRun(runId: string, store: string): Promise<boolean> {
  const events = openEventStore(store);
  try {
    const log = await readEvents(events, streams.run(runId), runEvents);
    if (log.length === 0) {
      process.stderr.write(`stagecraft: no run ${runId} in ${store}\n`);
      return false;
    }
    const result = replayRun(log, DEFAULT_RUN_LIMITS);
    if (result.identical) {
      process.stdout.write(
        `run ${runId}: ${result.events} events decided again in ${result.decisions} decisions, all identical (no model, tool or reviewer was asked)\n`,
      );
      return true;
    }
    const show = (event: { type: string; data: unknown } | null) =>
      event ? JSON.stringify({ type: event.type, data: event.data }) : '(nothing)';
    process.stdout.write(
      `run ${runId}: event ${result.index} differs (${result.why})\n  recorded: ${show(result.expected)}\n  decided:  ${show(result.actual)}\n`,
    );
    return false;
  } finally {
    await events.close();
  }
}

/** `stagecraft audit`: the invariants of DESIGN.md over one stored run, or over every run in the store; true when none is broken. */
export async function auditStore(store: string, runId?: string): Promise<boolean> {
  const events = openEventStore(store);
  try {
    const runIds = runId
      ? [runId]
      : (await events.readAll()).flatMap((e) => (e.type === 'RunStarted' ? [(e.data as { runId: string }).runId] : []));
    let broken = 0;
    for (const id of runIds) {
      const log = await readEvents(events, streams.run(id), runEvents);
      const findings =
        log.length === 0 ? [{ index: 0, type: '', invariant: 'starts-with-run-started', message: `no run ${id}` }] : auditRun(log);
      for (const f of findings)
        process.stdout.write(`run ${id}: event ${f.index}${f.type ? ` (${f.type})` : ''} breaks ${f.invariant}: ${f.message}\n`);
      broken += findings.length;
    }
    process.stdout.write(`audited ${runIds.length} run(s): ${broken === 0 ? 'every invariant holds' : `${broken} finding(s)`}\n`);
    return broken === 0;
  } finally {
    await events.close();
  }
}
