import { DEFAULT_RUN_EVENTS_MAX_AGE_MS } from '@stagecraft/messaging';
import { DEFAULT_LEASE_TTL_MS, scaleFromEnv } from './scale-config';

describe('replica settings from the environment', () => {
  it('defaults when unset or empty', () => {
    expect(scaleFromEnv({})).toEqual({ leaseTtlMs: DEFAULT_LEASE_TTL_MS, runEventsMaxAgeMs: DEFAULT_RUN_EVENTS_MAX_AGE_MS });
    expect(scaleFromEnv({ STAGECRAFT_LEASE_TTL_MS: ' ' }).leaseTtlMs).toBe(DEFAULT_LEASE_TTL_MS);
  });

  it('reads both variables', () => {
    expect(scaleFromEnv({ STAGECRAFT_LEASE_TTL_MS: '4000', STAGECRAFT_RUN_EVENTS_MAX_AGE_MS: '60000' })).toEqual({
      leaseTtlMs: 4_000,
      runEventsMaxAgeMs: 60_000,
    });
  });

  it.each([
    ['STAGECRAFT_LEASE_TTL_MS', 'soon'],
    ['STAGECRAFT_LEASE_TTL_MS', '10'],
    ['STAGECRAFT_LEASE_TTL_MS', '1.5'],
    ['STAGECRAFT_RUN_EVENTS_MAX_AGE_MS', '-1'],
  ])('refuses %s=%s with a VALIDATION error naming it', (name, value) => {
    expect(() => scaleFromEnv({ [name]: value })).toThrow(
      expect.objectContaining({ code: 'VALIDATION', issues: [expect.objectContaining({ path: [name] })] }),
    );
  });
});
