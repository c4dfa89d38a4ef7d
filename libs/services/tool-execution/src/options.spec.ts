import { toolExecutionOptionsFromEnv } from './options';

describe('toolExecutionOptionsFromEnv', () => {
  it('sandboxes commands with bubblewrap and no network by default', () => {
    expect(toolExecutionOptionsFromEnv({}).sandbox).toMatchObject({ bwrap: 'bwrap', network: false, unsafeWithoutSandbox: false });
  });

  it('redacts the configured secrets from tool results', () => {
    const { scrub } = toolExecutionOptionsFromEnv({
      OPENAI_API_KEY: 'sk-live-0123456789abcdef',
      GITHUB_TOKEN: 'ghp_abcdefghijklmnop',
      HOME: '/home/me',
    });
    expect(scrub?.('key sk-live-0123456789abcdef and ghp_abcdefghijklmnop in /home/me')).toBe(
      'key [redacted:OPENAI_API_KEY] and [redacted:GITHUB_TOKEN] in /home/me',
    );
  });

  it('names a bad sandbox variable', () => {
    expect(() => toolExecutionOptionsFromEnv({ STAGECRAFT_SANDBOX_NETWORK: 'maybe' })).toThrow(/STAGECRAFT_SANDBOX_NETWORK/);
  });
});
