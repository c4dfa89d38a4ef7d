import { RunEvent } from '@stagecraft/contracts';
import { RunState, foldRun, runIds, toolCallRequester } from '@stagecraft/run';
import { commitsOf, forkCopies, forkHead } from './fork-head';

const AT = '2026-01-01T00:00:00.000Z';
type Stored = RunEvent & { revision: bigint };

const policy = {
  stage: 'act',
  userMode: 'chat',
  reasoningEnabled: false,
  tools: [],
  toolLoop: false,
  prompts: [],
  reasoning: { required: false },
  delegation: { chain: [], depth: 0 },
} as unknown as Extract<RunEvent, { type: 'StageEntered' }>['data']['policy'];

/** A run's stream as commits of event types; `marked`: each event names its commit's first revision. */
function stream(commits: RunEvent['type'][][], marked = true): Stored[] {
  const events: Stored[] = [];
  commits.forEach((types, c) => {
    const commitStart = events.length;
    for (const type of types) {
      const data =
        type === 'RunStarted'
          ? { runId: 'r1', conversationId: 'c1', userMode: 'chat', reasoningEnabled: false, userInput: 'hi', projectRoot: '/p' }
          : type === 'StageEntered'
            ? { stage: 'act', iteration: 0, policy, contextId: 'r1/main/001/2026-01-01T00:00:00.000Z' }
            : type === 'ModelResponded'
              ? { requestId: 'r1.m1', content: 'hello', toolCalls: [], latencyMs: 1, finishReason: 'stop' }
              : type === 'MessageAppended'
                ? {
                    messageId: 'r1.msg1',
                    role: 'assistant',
                    content: 'hello',
                    instructions: [],
                    intermediate: false,
                    kind: 'assistant',
                    stage: 'act',
                  }
                : { deliveryState: 'DONE', answer: 'hello' };
      // Older logs: every commit of this run stored within the same millisecond, each with its own cause.
      // Only RunStarted names the correlation; the events after it share it.
      const metadata = {
        runId: 'r1',
        ...(type === 'RunStarted' ? { correlationId: 'k1' } : {}),
        occurredAt: AT,
        causationId: `cause-${c}`,
        ...(marked ? { commitStart } : {}),
      };
      events.push({ type, data, metadata, revision: BigInt(events.length) } as Stored);
    }
  });
  return events;
}

const RUN: RunEvent['type'][][] = [
  ['RunStarted', 'MessageAppended', 'StageEntered'],
  ['ModelResponded', 'MessageAppended'],
  ['RunCompleted'],
];

describe('commitsOf', () => {
  it('reads the commits from the revision each event names', () => {
    expect(commitsOf(stream(RUN))).toEqual([
      { first: 0, last: 2 },
      { first: 3, last: 4 },
      { first: 5, last: 5 },
    ]);
  });

  it('falls back to the time and cause events of one append share, in logs that name no revision', () => {
    expect(commitsOf(stream(RUN, false))).toEqual(commitsOf(stream(RUN)));
  });
});

describe('forkHead', () => {
  const events = stream(RUN);

  it('keeps the events up to a commit end', () => {
    const { head, conversationId } = forkHead(events, 'r1', 4);
    expect(head.map((e) => e.type)).toEqual(RUN.slice(0, 2).flat());
    expect(conversationId).toBe('c1');
  });

  it('refuses a point inside a commit and names the nearest commit ends', () => {
    expect(() => forkHead(events, 'r1', 3)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('the nearest commit ends are 2 or 4') }),
    );
    expect(() => forkHead(events, 'r1', 0)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('the nearest commit ends are 2') }),
    );
  });

  it('refuses an unknown run, a point beyond the log, a run that has not started or has ended there', () => {
    expect(() => forkHead([], 'r9', 0)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => forkHead(events, 'r1', 6)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', issues: [expect.objectContaining({ path: ['atRevision'] })] }),
    );
    expect(() => forkHead(events, 'r1', 5)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('has completed') }),
    );
    const headless = stream([['MessageAppended'], ['RunStarted', 'StageEntered']]);
    expect(() => forkHead(headless, 'r1', 0)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('has not started') }),
    );
  });
});

describe('forkCopies', () => {
  it('copies the head under new ids and the new run id, and says where it came from', () => {
    const { head } = forkHead(stream(RUN), 'r1', 4);
    let n = 0;
    const copies = forkCopies(head, { runId: 'r1', revision: 4 }, 'r2', 'k2', () => `id-${++n}`);
    expect(copies.map((e) => e.id)).toEqual(['id-1', 'id-2', 'id-3', 'id-4', 'id-5']);
    expect(copies[0].data).toMatchObject({ runId: 'r2', forkedFrom: { runId: 'r1', revision: 4 } });
    expect(copies.slice(1).map((e) => e.data)).toEqual(head.slice(1).map((e) => e.data));
    // Commit marks stay: the copy has the commits of the head it copied.
    expect(copies.map((e) => e.metadata)).toEqual(
      head.map((e, i) => ({ ...e.metadata, runId: 'r2', ...(i === 0 ? { correlationId: 'k2' } : {}) })),
    );
  });
});

describe('toolCallRequester', () => {
  const request = (callId: string) => ({ callId });
  const asRequestedBy = (state: RunState, { callId }: { callId: string }) => ({
    runId: state.status === 'new' ? '' : toolCallRequester(state.start, callId),
  });
  const started = (forkedFrom?: { runId: string; revision: number }) =>
    foldRun([
      {
        type: 'RunStarted',
        data: {
          runId: 'r2',
          conversationId: 'c1',
          userMode: 'agent',
          reasoningEnabled: false,
          userInput: 'hi',
          projectRoot: '/p',
          forkedFrom,
        },
      },
    ]);

  it('asks for a call copied into a fork as the run whose model asked for it', () => {
    const copied = runIds.toolCall(runIds.modelRequest('r1.a', 3), 'call_read');
    expect(runIds.runOfToolCall(copied)).toBe('r1.a');
    expect(asRequestedBy(started({ runId: 'r1.a', revision: 9 }), request(copied)).runId).toBe('r1.a');
  });

  it("leaves the fork's own calls, and every call of a run that is no fork, as they are", () => {
    const own = runIds.toolCall(runIds.modelRequest('r2', 4), 'call_read');
    expect(asRequestedBy(started({ runId: 'r1', revision: 9 }), request(own)).runId).toBe('r2');
    const old = runIds.toolCall(runIds.modelRequest('r1', 1), 'x');
    expect(asRequestedBy(started(), request(old)).runId).toBe('r2');
  });
});
