import { DEFAULT_BASE_URL, DEFAULT_MODEL, gatewayConfigFromEnv, modelForStage, stageModelVariable } from './config';

describe('gatewayConfigFromEnv', () => {
  it('defaults to OpenAI and a small model, with no key', () => {
    expect(gatewayConfigFromEnv({})).toEqual({ baseURL: DEFAULT_BASE_URL, apiKey: null, model: DEFAULT_MODEL });
    expect(gatewayConfigFromEnv({ OPENAI_API_KEY: ' ', STAGECRAFT_MODEL: '' })).toEqual({
      baseURL: DEFAULT_BASE_URL,
      apiKey: null,
      model: DEFAULT_MODEL,
    });
  });

  it('reads every variable', () => {
    const env = {
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_API_KEY: 'sk-test',
      STAGECRAFT_MODEL: 'qwen2.5-coder',
      STAGECRAFT_MODEL_TIMEOUT_MS: '30000',
      STAGECRAFT_MODEL_MAX_RETRIES: '0',
    };
    expect(gatewayConfigFromEnv(env)).toEqual({
      baseURL: env.OPENAI_BASE_URL,
      apiKey: 'sk-test',
      model: 'qwen2.5-coder',
      timeoutMs: 30000,
      maxRetries: 0,
    });
  });

  it('reads a model per stage from STAGECRAFT_MODEL_<STAGE>, blank meaning unset', () => {
    const config = gatewayConfigFromEnv({
      STAGECRAFT_MODEL: 'big',
      STAGECRAFT_MODEL_WARMUP: 'small',
      STAGECRAFT_MODEL_TOOL_FOLLOWUP: 'medium',
      STAGECRAFT_MODEL_QA_REVIEW: ' ',
    });
    expect(config.stageModels).toEqual({ warmup: 'small', tool_followup: 'medium' });
    expect(['warmup', 'act', 'tool_followup', 'delivery_check', 'qa_review'].map((s) => modelForStage(config, s as never))).toEqual([
      'small',
      'big',
      'medium',
      'big',
      'big',
    ]);
    expect(stageModelVariable('delivery_check')).toBe('STAGECRAFT_MODEL_DELIVERY_CHECK');
  });

  it.each([
    ['OPENAI_BASE_URL', 'not a url'],
    ['OPENAI_BASE_URL', 'ftp://example.com/v1'],
    ['STAGECRAFT_MODEL_TIMEOUT_MS', 'soon'],
    ['STAGECRAFT_MODEL_TIMEOUT_MS', '-5'],
    ['STAGECRAFT_MODEL_MAX_RETRIES', '2.5'],
    ['STAGECRAFT_MODEL_MAX_RETRIES', '99'],
  ])('refuses %s=%s with VALIDATION naming the variable', (name, value) => {
    let thrown: unknown;
    try {
      gatewayConfigFromEnv({ [name]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining(name),
      issues: [expect.objectContaining({ path: [name] })],
    });
  });
});
