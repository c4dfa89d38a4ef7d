import { ToolCallEvent, ToolExecuteRequest } from '@stagecraft/contracts';
import { assertSameCall, foldToolCall, settledOutcome } from './tool-call-record';

const metadata = { runId: 'r1', correlationId: 'k1', occurredAt: '2026-01-01T00:00:00.000Z' };
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
const started: ToolCallEvent = {
  type: 'ToolExecutionStarted',
  data: { callId: 'c1', tool: 'read_file', arguments: { startLine: 1, path: 'a.ts' }, stage: 'act' },
  metadata,
};
const finished: ToolCallEvent = {
  type: 'ToolExecutionFinished',
  data: { callId: 'c1', tool: 'read_file', ok: true, output: 'x', truncated: false, durationMs: 3 },
  metadata,
};
const refused: ToolCallEvent = {
  type: 'ToolExecutionRefused',
  data: { callId: 'c1', tool: 'write_file', stage: 'qa_review', code: 'FORBIDDEN_TOOL', reason: 'no' },
  metadata,
};

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
});
