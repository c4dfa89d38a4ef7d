import { ToolExecuteRequest } from '@stagecraft/contracts';
import { fold, spec } from '@stagecraft/decider';
import { ToolCallDecided, assertSameCall, callBinding, settledOutcome, toolCallDecider } from './tool-call.decider';

const now = new Date('2026-01-01T00:00:00.000Z');
const request: ToolExecuteRequest = {
  callId: 'c1',
  runId: 'r1',
  tool: 'read_file',
  arguments: { path: 'a.ts', startLine: 1 },
  stage: 'act',
  userMode: 'agent',
  reasoningEnabled: false,
  delegation: { depth: 0, chain: [] },
  projectRoot: '/p',
};
const started: ToolCallDecided = {
  type: 'ToolExecutionStarted',
  data: { callId: 'c1', tool: 'read_file', arguments: { startLine: 1, path: 'a.ts' }, stage: 'act' },
};
const finished: ToolCallDecided = {
  type: 'ToolExecutionFinished',
  data: { callId: 'c1', tool: 'read_file', ok: true, output: 'x', truncated: false, durationMs: 3 },
};
const refused: ToolCallDecided = {
  type: 'ToolExecutionRefused',
  data: { callId: 'c1', tool: 'write_file', stage: 'qa_review', code: 'FORBIDDEN_TOOL', reason: 'no' },
};
const foldToolCall = (events: ToolCallDecided[]) => fold(toolCallDecider, events);

describe('tool call record', () => {
  it('is unsettled while only started, and replays the recorded result once finished', () => {
    expect(settledOutcome(foldToolCall([]))).toBeNull();
    expect(settledOutcome(foldToolCall([started]))).toBeNull();
    expect(settledOutcome(foldToolCall([started, finished]))).toEqual({
      callId: 'c1',
      tool: 'read_file',
      ok: true,
      output: 'x',
      truncated: false,
      durationMs: 3,
      replayed: true,
    });
  });

  it('repeats a recorded refusal with its code', () => {
    expect(() => settledOutcome(foldToolCall([refused]))).toThrow(expect.objectContaining({ code: 'FORBIDDEN_TOOL', message: 'no' }));
  });

  it('accepts the same call whatever the key order, and refuses a call id reused for another call', () => {
    const record = foldToolCall([started, finished]);
    expect(() => assertSameCall(record, request)).not.toThrow();
    expect(() => assertSameCall(record, { ...request, arguments: { path: 'b.ts', startLine: 1 } })).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
    expect(() => assertSameCall(record, { ...request, tool: 'list_dir' })).toThrow(
      /already used for a different call \(read_file in act\)/,
    );
    expect(() => assertSameCall(foldToolCall([refused]), { ...request, tool: 'write_file', stage: 'act' })).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
  });

  it('is a union on status: an event that does not fit the state is left out', () => {
    expect(foldToolCall([started, finished])).toMatchObject({ status: 'finished', started: started.data, finished: finished.data });
    expect(foldToolCall([refused, started])).toEqual({ status: 'refused', refused: refused.data });
    expect(foldToolCall([finished])).toEqual({ status: 'new' });
  });
});

describe('the tool call decider', () => {
  it('refuses a tool the stage does not offer before it asks about the project root', () => {
    spec(toolCallDecider, { now })
      .given([])
      .when({ type: 'StartCall', request: { ...request, tool: 'write_file', stage: 'qa_review' } })
      .then([
        {
          type: 'ToolExecutionRefused',
          data: {
            callId: 'c1',
            tool: 'write_file',
            stage: 'qa_review',
            code: 'FORBIDDEN_TOOL',
            reason:
              'write_file is not available in the qa_review stage (agent mode offers read_file, list_dir, search_code, find_symbol, list_entry_points, search_index, read_tool_output, memory_recall)',
            binding: callBinding(request),
          },
        },
      ]);
  });

  it('needs the project root checked, then starts with a deadline, or refuses the root', () => {
    spec(toolCallDecider, { now }).given([]).when({ type: 'StartCall', request }).thenNeeds('projectRoot');
    spec(toolCallDecider, { now, projectRoot: { allowed: true } })
      .given([])
      .when({ type: 'StartCall', request })
      .then([
        {
          type: 'ToolExecutionStarted',
          data: {
            callId: 'c1',
            tool: 'read_file',
            arguments: request.arguments,
            stage: 'act',
            binding: callBinding(request),
            deadline: '2026-01-01T00:01:00.000Z',
          },
        },
      ]);
    spec(toolCallDecider, { now, projectRoot: { allowed: false, reason: 'outside' } })
      .given([])
      .when({ type: 'StartCall', request })
      .then([
        {
          type: 'ToolExecutionRefused',
          data: { callId: 'c1', tool: 'read_file', stage: 'act', code: 'FORBIDDEN_PATH', reason: 'outside', binding: callBinding(request) },
        },
      ]);
  });

  it('starts a call once: a recorded one is CONFLICT, a different one with its reuse message', () => {
    spec(toolCallDecider, { now, projectRoot: { allowed: true } })
      .given([started])
      .when({ type: 'StartCall', request })
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT', message: "call 'c1' is already started" }));
    spec(toolCallDecider, { now, projectRoot: { allowed: true } })
      .given([started])
      .when({ type: 'StartCall', request: { ...request, tool: 'list_dir' } })
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT', issues: [{ path: ['callId'] }] }));
  });

  it('finishes or interrupts only a started call', () => {
    const outcome = { ok: true, output: 'x', truncated: false };
    spec(toolCallDecider, { now }).given([started]).when({ type: 'FinishCall', outcome, durationMs: 3 }).then([finished]);
    const [interrupted] = spec(toolCallDecider, { now })
      .given([started])
      .when({ type: 'InterruptCall', why: 'its run was cancelled' })
      .events();
    expect(interrupted).toMatchObject({
      type: 'ToolExecutionFinished',
      data: { callId: 'c1', tool: 'read_file', ok: false, truncated: false, durationMs: 0, interrupted: true },
    });
    expect((interrupted.data as { output: string }).output).toContain('the read_file call was interrupted: its run was cancelled');
    for (const given of [[], [started, finished], [refused]])
      spec(toolCallDecider, { now })
        .given(given)
        .when({ type: 'FinishCall', outcome, durationMs: 1 })
        .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT' }));
  });
});
