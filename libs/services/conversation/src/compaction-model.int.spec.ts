import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventData, streams } from '@stagecraft/contracts';
import { RecordedRequest, ScriptedReply } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, macroReasoning, microReasoning } from '@stagecraft/testing';
import { EmbeddedServices, runToEnd, startEmbedded } from '@stagecraft/testing-system';

/**
 * The `model` compaction method over HTTP: the run asks the scripted model for a summary with the
 * summarize prompt, keeps the call in `HistoryCompacted`, and sends the model's summary from then on.
 * When that call fails, the run compacts extractively and goes on.
 */

const FILES = 6;
type Message = { role: string; content?: string | null };
const messagesOf = (r: RecordedRequest): Message[] => r.body.messages ?? [];
const isSummaryRequest = (r: RecordedRequest) => String(messagesOf(r)[0]?.content ?? '').startsWith('You compact the earlier part');

function agent(summaryFails: boolean) {
  return (request: RecordedRequest): ScriptedReply => {
    if (isSummaryRequest(request)) {
      if (summaryFails) return { status: 500, content: 'no summaries today' };
      return {
        content:
          '## Goals\n- read every file\n## Decisions\n- read them in order\n## Current plan\n- keep reading\n## Open issues\n- none\n## Important tool outputs\n- f1.ts holds value 1',
        usage: { prompt_tokens: 900, completion_tokens: 60 },
      };
    }
    const last = [...messagesOf(request)].reverse().find((m) => m.role === 'tool');
    const read = Number(/^file (\d+)/.exec(String(last?.content ?? ''))?.[1] ?? 0);
    switch (request.stage) {
      case 'warmup':
        return { content: `${macroReasoning()}\nI will read the files.` };
      case 'act':
      case 'tool_followup':
        if (read < FILES)
          return {
            content: microReasoning(`read f${read + 1}.ts`),
            toolCalls: [{ id: `c${read + 1}`, name: 'read_file', arguments: { path: `f${read + 1}.ts` } }],
          };
        return { content: `${microReasoning('answer', 'DONE')}\nRead them all.` };
      case 'delivery_check':
        return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
      default:
        return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    }
  };
}

describe.each([
  ['answers', false],
  ['fails', true],
])('compacting with the model method, when the summary call %s', (_name, summaryFails) => {
  let embedded: EmbeddedServices;
  const runId = `model-compaction-${summaryFails ? 'fails' : 'answers'}`;

  beforeAll(async () => {
    embedded = await startEmbedded({
      script: agent(summaryFails),
      dirPrefix: 'stagecraft-compaction-model-',
      readme: '# Files\n',
      conversation: { compaction: { method: 'model', maxMessages: 8, maxTokens: 100_000, keepRecentTokens: 200 } },
    });
    for (let n = 1; n <= FILES; n++) writeFileSync(join(embedded.project, `f${n}.ts`), `file ${n}\nexport const value${n} = ${n};\n`);
  });

  afterAll(async () => {
    await embedded?.close();
  });

  it('completes, and the summary it sent is the one recorded', async () => {
    const { end } = await runToEnd(embedded.host, { runId, message: 'Read every file', projectRoot: embedded.project });
    expect(end).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
    const events = await embedded.host.ports.store!.readStream(streams.run(runId));
    const compactions = events.flatMap((e) => (e.type === 'HistoryCompacted' ? [e.data as EventData<'HistoryCompacted'>] : []));
    expect(compactions.length).toBeGreaterThan(0);
    const [first] = compactions;
    const asked = embedded.server.requests.filter((r) => r.headers['x-stagecraft-run-id'] === runId && isSummaryRequest(r));
    if (summaryFails) {
      // The call was made (and failed): the run compacted extractively, from its own events.
      expect(asked.length).toBeGreaterThan(0);
      expect(first).toMatchObject({ method: 'extractive', summary: { goals: { items: ['Read every file'] } } });
      expect(first.modelCall).toBeUndefined();
      return;
    }
    expect(first).toMatchObject({
      method: 'model',
      modelCall: {
        requestId: `${runId}.compaction1`,
        model: 'scripted',
        messageCount: 2,
        usage: { promptTokens: 900, completionTokens: 60 },
      },
      summary: { goals: { items: ['read every file'] }, toolOutputs: { items: ['f1.ts holds value 1'] } },
    });
    expect(first.summary.goals.sources).toEqual(first.covers);
    // One summary call per compaction, with the stage's headers and no tools, its transcript free of reasoning.
    expect(asked).toHaveLength(compactions.length);
    for (const r of asked) {
      expect(r.body.tools ?? []).toEqual([]);
      expect(r.headers['x-stagecraft-stage']).toMatch(/^(act|tool_followup)$/);
      expect(String(messagesOf(r)[1].content)).not.toContain('<ide_reasoning>');
    }
    // The next request of the run starts with the model's summary.
    const after = embedded.server.requests.filter(
      (r) => r.headers['x-stagecraft-run-id'] === runId && !isSummaryRequest(r) && r.index > asked[0].index,
    )[0];
    expect(String(messagesOf(after)[1].content)).toContain('- read every file');
  });
});
