import { auditRun, reasoningText } from './audit';
import { recordedRun } from './given.testing';
import { PendingEvent } from './pending-event';

/** The recorded run with one event changed: `change` gets each event of `type` and returns its replacement (or itself). */
function planted<T extends PendingEvent['type']>(
  type: T,
  change: (event: Extract<PendingEvent, { type: T }>) => PendingEvent,
): PendingEvent[] {
  let done = false;
  return recordedRun().map((event) => {
    if (done || event.type !== type) return event;
    const changed = change(event as Extract<PendingEvent, { type: T }>);
    if (changed !== event) done = true;
    return changed;
  });
}

const at = (log: PendingEvent[], find: (e: PendingEvent) => boolean) => log.findIndex(find);

describe('auditRun', () => {
  it('finds nothing wrong with a run the decider wrote', () => {
    expect(auditRun(recordedRun())).toEqual([]);
  });

  it.each([
    [
      'user-switches-kept',
      () =>
        planted('StageEntered', (e) =>
          e.data.stage === 'act' && e.data.policy ? { ...e, data: { ...e.data, policy: { ...e.data.policy, userMode: 'chat' } } } : e,
        ),
      (e: PendingEvent) => e.type === 'StageEntered' && e.data.stage === 'act',
    ],
    [
      'tools-by-stage',
      () =>
        planted('ModelRequested', (e) =>
          e.data.stage === 'delivery_check' ? { ...e, data: { ...e.data, toolNames: ['write_file'] } } : e,
        ),
      (e: PendingEvent) => e.type === 'ModelRequested' && e.data.stage === 'delivery_check',
    ],
    [
      'reasoning-instruction',
      () =>
        planted('StageEntered', (e) =>
          e.data.stage === 'delivery_check' && e.data.policy
            ? {
                ...e,
                data: { ...e.data, policy: { ...e.data.policy, prompts: e.data.policy.prompts.filter((p) => !p.includes('reasoning')) } },
              }
            : e,
        ),
      (e: PendingEvent) => e.type === 'StageEntered' && e.data.stage === 'delivery_check',
    ],
    [
      'no-reasoning-reentry',
      () =>
        planted('MessageAppended', (e) =>
          e.data.kind === 'assistant'
            ? { ...e, data: { ...e.data, content: `<ide_reasoning>- Plan delta: x</ide_reasoning>\n${e.data.content}` } }
            : e,
        ),
      (e: PendingEvent) => e.type === 'MessageAppended' && e.data.kind === 'assistant',
    ],
    [
      'qa-read-only',
      () => planted('RunCompleted', (e) => ({ ...e, data: { ...e.data, answer: 'A better answer, rewritten by QA.' } })),
      (e: PendingEvent) => e.type === 'RunCompleted',
    ],
    [
      'done-never-erased',
      () => planted('RunCompleted', (e) => ({ ...e, data: { ...e.data, deliveryState: 'NEEDS_WORK' } })),
      (e: PendingEvent) => e.type === 'RunCompleted',
    ],
  ] as const)('names the event that breaks %s', (invariant, log, broken) => {
    const events = log();
    expect(auditRun(events)).toEqual([expect.objectContaining({ invariant, index: at(events, broken) })]);
  });

  it('names a message added during QA, and a tool requested outside the acting stages', () => {
    const log = recordedRun();
    const qa = at(log, (e) => e.type === 'StageEntered' && e.data.stage === 'qa_review');
    const withNote: PendingEvent[] = [
      ...log.slice(0, qa + 1),
      {
        type: 'MessageAppended',
        data: { messageId: 'r1.qa', role: 'assistant', content: 'Rewritten.', instructions: [], intermediate: true, kind: 'assistant' },
      },
      ...log.slice(qa + 1),
    ];
    expect(auditRun(withNote)).toEqual([expect.objectContaining({ invariant: 'qa-read-only', index: qa + 1 })]);
    const warmup = at(log, (e) => e.type === 'StageEntered' && e.data.stage === 'warmup');
    const withCall: PendingEvent[] = [
      ...log.slice(0, warmup + 1),
      { type: 'ToolCallRequested', data: { callId: 'r1.m1.x', tool: 'write_file', arguments: {}, stage: 'warmup' } },
      ...log.slice(warmup + 1),
    ];
    expect(auditRun(withCall)).toEqual([expect.objectContaining({ invariant: 'tools-by-stage', index: warmup + 1 })]);
  });

  it('finds a recorded reasoning block quoted in a tool result, read from its response, or from the record in older logs', () => {
    const log = recordedRun();
    const recorded = at(log, (e) => e.type === 'ReasoningRecorded');
    const reasoning = log[recorded];
    const response = log.find((e) => e.type === 'ModelResponded');
    if (reasoning.type !== 'ReasoningRecorded' || response?.type !== 'ModelResponded') throw new Error('the recorded run has no reasoning');
    // The decider no longer copies the block: it is the first of the response recorded just before.
    expect(reasoning.data.text).toBeUndefined();
    const block = reasoningText(reasoning.data, response.data.content);
    expect(block).toMatch(/^<ide_reasoning>[\s\S]*<\/ide_reasoning>$/);
    const result = at(log, (e) => e.type === 'MessageAppended' && e.data.kind === 'tool_result');
    const quoting = (events: PendingEvent[]) =>
      events.map((e, i) =>
        i === result && e.type === 'MessageAppended' ? { ...e, data: { ...e.data, content: `Earlier: ${block}` } } : e,
      );
    expect(auditRun(quoting(log))).toEqual([expect.objectContaining({ invariant: 'no-reasoning-reentry', index: result })]);
    // A log written before: the record holds the text, and the response is not needed.
    const older = log.map((e, i) =>
      i === recorded && e.type === 'ReasoningRecorded'
        ? { ...e, data: { ...e.data, text: block } }
        : e.type === 'ModelResponded'
          ? { ...e, data: { ...e.data, content: '' } }
          : e,
    );
    expect(auditRun(quoting(older))).toEqual([expect.objectContaining({ invariant: 'no-reasoning-reentry', index: result })]);
  });

  it('refuses a stream that does not start with RunStarted', () => {
    expect(auditRun(recordedRun().slice(1))).toEqual([expect.objectContaining({ invariant: 'starts-with-run-started', index: 0 })]);
  });
});

describe('auditRun, only ticket agents write (docs/decisions/0036)', () => {
  const asAgent = (agentType: string): PendingEvent[] =>
    recordedRun().map((e) =>
      e.type === 'RunStarted'
        ? {
            ...e,
            data: {
              ...e.data,
              agent: {
                workflowId: 'wf',
                agentId: agentType,
                agentType,
                role: 'agent',
                phase: 'discovery',
                contextId: 'wf/discovery-agent/001/2026-01-01T00:00:00.000Z',
                attempt: 1,
                upstream: [],
              },
            },
          }
        : e,
    );

  it('flags every stage whose policy offers a discovery agent a write or execute tool', () => {
    const events = asAgent('discovery-agent');
    const findings = auditRun(events).filter((f) => f.invariant === 'only-ticket-agents-write');
    expect(findings.length).toBeGreaterThan(0);
    expect(findings[0]).toEqual(
      expect.objectContaining({
        // Offered counts too: every request of the run offers the acting stages' tools (docs/decisions/0052).
        index: at(events, (e) => e.type === 'StageEntered' && e.data.policy?.offered?.includes('write_file') === true),
      }),
    );
    expect(findings[0].message).toContain('write_file');
  });

  it('lets a ticket agent be offered them', () => {
    expect(auditRun(asAgent('ticket-agent')).filter((f) => f.invariant === 'only-ticket-agents-write')).toEqual([]);
  });
});
