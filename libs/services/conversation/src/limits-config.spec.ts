import { DEFAULT_RUN_LIMITS } from '@stagecraft/run';
import { limitsFromEnv, stageMessageRoleFromEnv } from './limits-config';

describe('run limits from the environment', () => {
  it('keeps the base when unset or empty', () => {
    expect(limitsFromEnv({}, DEFAULT_RUN_LIMITS)).toEqual(DEFAULT_RUN_LIMITS);
    expect(limitsFromEnv({ STAGECRAFT_MAX_TOOL_ROUNDS: ' ' }, DEFAULT_RUN_LIMITS)).toEqual(DEFAULT_RUN_LIMITS);
  });

  it('reads both variables over the base, leaving the other bounds alone', () => {
    const base = { ...DEFAULT_RUN_LIMITS, maxToolIterations: 7 };
    expect(limitsFromEnv({ STAGECRAFT_MAX_DELIVERY_CHECKS: '5' }, base)).toEqual({ ...base, maxDeliveryChecks: 5 });
    expect(limitsFromEnv({ STAGECRAFT_MAX_TOOL_ROUNDS: '200', STAGECRAFT_MAX_DELIVERY_CHECKS: '1' }, base)).toEqual({
      ...DEFAULT_RUN_LIMITS,
      maxToolIterations: 200,
      maxDeliveryChecks: 1,
    });
  });

  it.each([
    ['STAGECRAFT_MAX_TOOL_ROUNDS', 'many'],
    ['STAGECRAFT_MAX_TOOL_ROUNDS', '0'],
    ['STAGECRAFT_MAX_TOOL_ROUNDS', '201'],
    ['STAGECRAFT_MAX_TOOL_ROUNDS', '2.5'],
    ['STAGECRAFT_MAX_DELIVERY_CHECKS', '21'],
    ['STAGECRAFT_MAX_DELIVERY_CHECKS', '-1'],
    ['STAGECRAFT_CONTEXT_WINDOW', '4095'],
    ['STAGECRAFT_CONTEXT_WINDOW', '2000001'],
  ])('refuses %s=%s with a VALIDATION error naming it', (name, value) => {
    expect(() => limitsFromEnv({ [name]: value }, DEFAULT_RUN_LIMITS)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', issues: [expect.objectContaining({ path: [name] })] }),
    );
  });

  it('reads the context window over the base', () => {
    expect(limitsFromEnv({ STAGECRAFT_CONTEXT_WINDOW: '32000' }, DEFAULT_RUN_LIMITS)).toEqual({
      ...DEFAULT_RUN_LIMITS,
      contextWindow: 32_000,
    });
  });
});

describe('the stage message role from the environment', () => {
  it('keeps the base when unset, reads system or user', () => {
    expect(stageMessageRoleFromEnv({}, 'system')).toBe('system');
    expect(stageMessageRoleFromEnv({ STAGECRAFT_STAGE_MESSAGE_ROLE: ' user ' }, 'system')).toBe('user');
    expect(stageMessageRoleFromEnv({ STAGECRAFT_STAGE_MESSAGE_ROLE: 'system' }, 'user')).toBe('system');
  });

  it('refuses anything else with a VALIDATION error naming it', () => {
    expect(() => stageMessageRoleFromEnv({ STAGECRAFT_STAGE_MESSAGE_ROLE: 'developer' }, 'system')).toThrow(
      expect.objectContaining({ code: 'VALIDATION', issues: [expect.objectContaining({ path: ['STAGECRAFT_STAGE_MESSAGE_ROLE'] })] }),
    );
  });
});
