import { ModelCallMeta, StagecraftError } from '@stagecraft/contracts';
import { enableMetrics, metricsExposition } from '@stagecraft/telemetry';
import { ModelGateway, stageModelOf } from './gateway';
import { instrumentedGateway } from './instrumented';

const meta = (stage: ModelCallMeta['stage']): ModelCallMeta => ({
  requestId: 'req-1',
  runId: 'run-1',
  conversationId: 'conv-1',
  stage,
  userMode: 'agent',
  reasoningEnabled: true,
});

/** A gateway with a model of its own for warmup, answering from a table. */
const tableGateway = (): ModelGateway => ({
  model: 'base-model',
  modelFor: (stage) => (stage === 'warmup' ? 'warmup-model' : 'base-model'),
  async complete(m) {
    if (m.stage === 'qa_review') throw new StagecraftError('UNAVAILABLE', 'model endpoint unreachable');
    return {
      content: 'ok',
      toolCalls: [],
      usage: { promptTokens: 11, completionTokens: 3, totalTokens: 14 },
      latencyMs: 1,
      finishReason: 'stop',
      model: stageModelOf(this, m.stage),
    };
  },
});

const line = (body: string, sample: string) => body.split('\n').find((l) => l.startsWith(`${sample} `));

describe('instrumentedGateway', () => {
  beforeAll(() => enableMetrics());

  it('is the same gateway to its callers: models per stage, answers and failures unchanged', async () => {
    const gateway = instrumentedGateway(tableGateway());
    expect([gateway.model, stageModelOf(gateway, 'warmup'), stageModelOf(gateway, 'act')]).toEqual([
      'base-model',
      'warmup-model',
      'base-model',
    ]);
    await expect(gateway.complete(meta('warmup'), [], [])).resolves.toMatchObject({ content: 'ok', model: 'warmup-model' });
    await expect(gateway.complete(meta('qa_review'), [], [])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('counts each call by the model its stage asks for, with its tokens and outcome', async () => {
    const gateway = instrumentedGateway(tableGateway());
    const samples = [
      'stagecraft_model_calls_total{model="warmup-model",stage="warmup",outcome="ok"}',
      'stagecraft_model_calls_total{model="base-model",stage="qa_review",outcome="UNAVAILABLE"}',
      'stagecraft_model_tokens_total{model="warmup-model",stage="warmup",direction="in"}',
      'stagecraft_model_tokens_total{model="warmup-model",stage="warmup",direction="out"}',
    ];
    const read = async () => {
      const { body } = await metricsExposition();
      return samples.map((sample) => Number(line(body, sample)?.slice(sample.length + 1) ?? 0));
    };
    const before = await read();
    await gateway.complete(meta('warmup'), [], []);
    await gateway.complete(meta('qa_review'), [], []).catch(() => undefined);
    const after = await read();
    expect(after.map((value, i) => value - before[i])).toEqual([1, 1, 11, 3]);
  });

  it('has no per-stage models when the gateway it wraps has none', () => {
    const plain: ModelGateway = { model: 'm', complete: () => Promise.reject(new Error('unused')) };
    expect(instrumentedGateway(plain).modelFor).toBeUndefined();
  });
});
