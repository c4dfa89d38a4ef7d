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

  it('redacts secrets by their form too, whatever variable they came from', () => {
    const { scrub } = toolExecutionOptionsFromEnv({});
    expect(scrub?.('remote https://bot:hunter2hunter2@git.example.com/x.git key AKIAIOSFODNN7EXAMPLE')).toBe(
      'remote https://bot:[redacted:password]@git.example.com/x.git key [redacted:aws-access-key]',
    );
  });

  it('reads the size of /tmp and the number of sandboxes at once', () => {
    const { sandbox } = toolExecutionOptionsFromEnv({ STAGECRAFT_SANDBOX_TMP_MB: '64', STAGECRAFT_SANDBOX_CONCURRENCY: '2' });
    expect(sandbox).toMatchObject({ concurrency: 2, limits: { tmpBytes: 64 * 1024 * 1024 } });
    expect(toolExecutionOptionsFromEnv({}).sandbox).toMatchObject({ concurrency: 4, limits: { tmpBytes: 256 * 1024 * 1024 } });
  });

  it('names a bad sandbox variable', () => {
    expect(() => toolExecutionOptionsFromEnv({ STAGECRAFT_SANDBOX_NETWORK: 'maybe' })).toThrow(/STAGECRAFT_SANDBOX_NETWORK/);
  });
});
