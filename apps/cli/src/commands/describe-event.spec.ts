import { StagecraftEvent } from '@stagecraft/contracts';
import { describeEvent } from './describe-event';

const metadata = { runId: 'r1', correlationId: 'c1', occurredAt: '2026-11-21T00:00:00.000Z' };
const report = { verdict: 'pass' as const, summary: 'The answer matches the project.', findings: [] };

describe('describeEvent', () => {
  it("shows the reviewer's model calls with the QA verdict, and nothing extra for logs without them", () => {
    const withCalls: StagecraftEvent = {
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
    expect(describeEvent({ type: 'QAReportIssued', data: { report }, metadata })).toBe('  QA pass: The answer matches the project.');
  });

  it('tells that a model request was made, in the past tense: it is stored with its answer', () => {
    const requested: StagecraftEvent = {
      type: 'ModelRequested',
      data: {
        requestId: 'r1.m1',
        stage: 'act',
        model: 'scripted',
        toolNames: [],
        messageCount: 3,
        tokenEstimate: 120,
        promptHash: 'a'.repeat(64),
        messageHashes: [],
        newBodies: {},
      },
      metadata,
    };
    expect(describeEvent(requested)).toBe('  → asked scripted (3 messages, ~120 tokens)');
  });
});
