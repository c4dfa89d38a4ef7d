import { FeedEvent, WorkflowEvent, runEventSchemas, toFeedEvent } from '@stagecraft/contracts';
import { describeEvent } from './describe-event';

const metadata = { runId: 'r1', correlationId: 'c1', occurredAt: '2026-11-21T00:00:00.000Z' };
const version = 1 as const;
const report = { verdict: 'pass' as const, summary: 'The answer matches the project.', findings: [] };

describe('describeEvent', () => {
  it('names the files a write touches, not the start of its content (the diff follows when it ran)', () => {
    const requested = (tool: string, args: Record<string, unknown>): FeedEvent => ({
      version,
      type: 'ToolCallRequested',
      data: { callId: 'c', tool: tool as never, arguments: args, stage: 'act' },
      metadata,
    });
    const patch =
      '--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n--- a/old.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n--- /dev/null\n+++ b/new.ts\n@@ -0,0 +1 @@\n+y\n';
    expect(describeEvent(requested('apply_patch', { patch }))).toBe('  ⚙ apply_patch README.md, old.ts, new.ts');
    expect(describeEvent(requested('write_file', { path: 'NOTES.md', content: 'long text' }))).toBe('  ⚙ write_file NOTES.md');
    expect(describeEvent(requested('read_file', { path: 'a.ts' }))).toBe('  ⚙ read_file {"path":"a.ts"}');
  });

  it("shows the reviewer's model calls with the QA verdict, and nothing extra for logs without them", () => {
    const withCalls: FeedEvent = {
      version,
      type: 'QAReportIssued',
      data: {
        report,
        modelCalls: [
          { requestId: 'q1', latencyMs: 3.4, finishReason: 'stop' },
          { requestId: 'q2', latencyMs: 5.1, finishReason: 'stop' },
        ],
      },
      metadata,
    };
    expect(describeEvent(withCalls)).toBe('  QA pass (2 model calls, 9 ms): The answer matches the project.');
    expect(describeEvent({ version, type: 'QAReportIssued', data: { report }, metadata })).toBe(
      '  QA pass: The answer matches the project.',
    );
  });

  it('closes a run short of DONE with the bound that ran out and its cause (docs/decisions/0056)', () => {
    const completed = (data: {
      deliveryState: 'DONE' | 'NEEDS_WORK';
      answer: string;
      limit?: 'maxDeliveryChecks';
      cause?: string;
    }): FeedEvent => ({
      version,
      type: 'RunCompleted',
      data,
      metadata,
    });
    expect(describeEvent(completed({ deliveryState: 'DONE', answer: 'Done.' }))).toBe('✔ completed (DONE)');
    expect(
      describeEvent(
        completed({
          deliveryState: 'NEEDS_WORK',
          answer: '',
          limit: 'maxDeliveryChecks',
          cause: 'maxDeliveryChecks ran out; no answer was given',
        }),
      ),
    ).toBe('✔ completed (NEEDS_WORK, maxDeliveryChecks ran out): maxDeliveryChecks ran out; no answer was given');
  });

  it('shows what a model response used: prompt, cached and completion tokens, and no tokens when it did not say', () => {
    const answered = (usage?: {
      promptTokens: number;
      completionTokens: number;
      totalTokens: number;
      cachedPromptTokens?: number;
    }): FeedEvent => ({
      version,
      type: 'ModelResponded',
      data: { requestId: 'r1.m1', content: 'hi', toolCalls: [], latencyMs: 12.2, finishReason: 'stop', ...(usage ? { usage } : {}) },
      metadata,
    });
    expect(describeEvent(answered({ promptTokens: 1000, cachedPromptTokens: 600, completionTokens: 10, totalTokens: 1010 }))).toBe(
      '  ← answer in 12 ms, 1000 prompt (600 cached) / 10 completion tokens',
    );
    expect(describeEvent(answered({ promptTokens: 5, completionTokens: 1, totalTokens: 6 }))).toBe(
      '  ← answer in 12 ms, 5 prompt (0 cached) / 1 completion tokens',
    );
    expect(describeEvent(answered())).toBe('  ← answer in 12 ms');
  });

  it('tells that a model request was made, in the past tense: it is stored with its answer', () => {
    // Described as the stored event's public form, which `runs show` and `chat` both print.
    const stored = {
      type: 'ModelRequested' as const,
      data: runEventSchemas.ModelRequested.parse({
        requestId: 'r1.m1',
        stage: 'act',
        model: 'scripted',
        toolNames: [],
        messageCount: 3,
        tokenEstimate: 120,
        promptHash: 'a'.repeat(64),
        messageHashes: [],
        newBodies: {},
      }),
      metadata,
    };
    const requested = toFeedEvent(stored);
    expect(requested && describeEvent(requested)).toBe('  → asked scripted (3 messages, ~120 tokens)');
  });

  it('tells what waits for approval and how it was answered', () => {
    const asked: FeedEvent = {
      version,
      type: 'ApprovalRequested',
      data: { approvalId: 'r1.m2.c1.approval', kind: 'tool_call', summary: 'write_file NOTES.md', callId: 'r1.m2.c1', tool: 'write_file' },
      metadata,
    };
    expect(describeEvent(asked)).toBe('  ⏸ waiting for approval: write_file NOTES.md');
    expect(describeEvent({ version, type: 'ApprovalGiven', data: { approvalId: 'a1' }, metadata })).toBe('  ✓ approved');
    expect(describeEvent({ version, type: 'ApprovalDenied', data: { approvalId: 'a1', reason: 'not now' }, metadata })).toBe(
      '  ⊘ denied: not now',
    );
  });

  it("gives a workflow's steps one line each", () => {
    const contextId = 'w1/discovery-agent/001/2026-11-21T00:00:00Z';
    const step = (event: WorkflowEvent) => describeEvent(event);
    const lines = [
      step({ type: 'PhaseStarted', data: { phase: 'discovery', round: 1 }, metadata }),
      step({
        type: 'AgentReturned',
        data: { agentId: 'a-1', runId: 'w1.a-1.1', contextId, outcome: 'completed', output: '{}' },
        metadata,
      }),
      step({
        type: 'WorktreesMerged',
        data: {
          phase: 'tickets',
          merged: [{ agentId: 'a-1', files: ['x.ts', 'y.ts'] }],
          conflicts: [{ path: 'z.ts', agentIds: ['a-1', 'a-2'] }],
        },
        metadata,
      }),
      step({ type: 'WorkflowFailed', data: { code: 'LIMIT_EXCEEDED', reason: 'too many reruns' }, metadata }),
    ];
    expect(lines).toEqual([
      '▶ phase discovery',
      '  ← a-1 completed',
      '  ⇉ merged 2 files, 1 conflict',
      '✘ workflow failed: LIMIT_EXCEEDED too many reruns',
    ]);
  });
});
