import { createScrubber, secretsFromEnv } from './scrubber';

describe('secretsFromEnv', () => {
  it('picks OPENAI_API_KEY, the names that look secret and the ones the operator lists', () => {
    const env = {
      OPENAI_API_KEY: 'sk-test-1234567890',
      GITHUB_TOKEN: 'ghp_abcdefghijkl',
      DB_PASSWORD: 'hunter22hunter22',
      SIGNING_SECRET: 'shh-shh-shh',
      DATABASE_URL: 'postgres://u:p@db/x',
      STAGECRAFT_SECRET_VARS: 'DATABASE_URL, OTHER',
      PATH: '/usr/bin',
      EMPTY_TOKEN: '',
      NOT_SET_KEY: undefined,
    };
    expect(secretsFromEnv(env)).toEqual({
      OPENAI_API_KEY: 'sk-test-1234567890',
      GITHUB_TOKEN: 'ghp_abcdefghijkl',
      DB_PASSWORD: 'hunter22hunter22',
      SIGNING_SECRET: 'shh-shh-shh',
      DATABASE_URL: 'postgres://u:p@db/x',
    });
  });
});

describe('createScrubber', () => {
  it('replaces every occurrence of each secret with its name', () => {
    const scrub = createScrubber({ OPENAI_API_KEY: 'sk-test-1234567890', GITHUB_TOKEN: 'ghp_abcdefghijkl' });
    expect(scrub('key=sk-test-1234567890\ntoken ghp_abcdefghijkl and again sk-test-1234567890.')).toBe(
      'key=[redacted:OPENAI_API_KEY]\ntoken [redacted:GITHUB_TOKEN] and again [redacted:OPENAI_API_KEY].',
    );
  });

  it('ignores values under 8 characters, which would redact ordinary words', () => {
    expect(createScrubber({ SHORT_KEY: 'true', EMPTY_KEY: '' })('true is true')).toBe('true is true');
  });

  it('redacts a secret that contains another whole, under its own name', () => {
    const scrub = createScrubber({ INNER_TOKEN: 'abcdefgh', OUTER_TOKEN: 'xx-abcdefgh-yy' });
    expect(scrub('xx-abcdefgh-yy abcdefgh')).toBe('[redacted:OUTER_TOKEN] [redacted:INNER_TOKEN]');
  });

  it('leaves text without secrets unchanged', () => {
    expect(createScrubber({})('nothing to hide')).toBe('nothing to hide');
  });

  describe('by shape, whatever variable (or file) the secret came from', () => {
    const scrub = createScrubber({});
    const a36 = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

    it('redacts the password of a URL and keeps the rest of the address', () => {
      expect(scrub('origin https://deploy:s3cr3t-p4ss@git.example.com/org/repo.git (fetch)')).toBe(
        'origin https://deploy:[redacted:password]@git.example.com/org/repo.git (fetch)',
      );
      expect(scrub('NATS_URL=nats://svc:hunter2@nats:4222 REDIS=redis://:p%40ss@cache:6379/0')).toBe(
        'NATS_URL=nats://svc:[redacted:password]@nats:4222 REDIS=redis://:[redacted:password]@cache:6379/0',
      );
    });

    it('redacts well-known API key and token formats', () => {
      const cases: [string, string][] = [
        [`sk-${'a1B2'.repeat(12)}`, 'openai-key'],
        [`sk-proj-${'Zx9_'.repeat(20)}`, 'openai-key'],
        [`sk-ant-api03-${'Qw3-'.repeat(20)}`, 'anthropic-key'],
        [`ghp_${a36}`, 'github-token'],
        [`gho_${a36}`, 'github-token'],
        [`github_pat_11ABCDEFG0_${a36}${a36}`, 'github-token'],
        ['AKIAIOSFODNN7EXAMPLE', 'aws-access-key'],
        ['xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'slack-token'],
        [`npm_${a36}`, 'npm-token'],
        ['AIzaSyA1234567890abcdefghijklmnopqrstuv', 'google-api-key'],
        ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'jwt'],
        [`SUAM${'A2B3C4D5'.repeat(6)}QRSTUV`, 'nkey-seed'],
      ];
      for (const [secret, kind] of cases) expect([kind, scrub(`value: "${secret}";`)]).toEqual([kind, `value: "[redacted:${kind}]";`]);
    });

    it('redacts a private key block, also when the output was cut off inside it', () => {
      const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nq83hX==\n-----END RSA PRIVATE KEY-----';
      expect(scrub(`key:\n${pem}\ndone`)).toBe(
        'key:\n-----BEGIN RSA PRIVATE KEY-----\n[redacted:private-key]\n-----END RSA PRIVATE KEY-----\ndone',
      );
      expect(scrub('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA')).toBe(
        '-----BEGIN OPENSSH PRIVATE KEY-----\n[redacted:private-key]\n',
      );
    });

    it('redacts a NATS creds file: the user JWT and the seed', () => {
      const creds = [
        '-----BEGIN NATS USER JWT-----',
        'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJqdGkiOiJBQkNERUYifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ',
        '------END NATS USER JWT------',
        '',
        '-----BEGIN USER NKEY SEED-----',
        `SUAM${'A2B3C4D5'.repeat(6)}QRSTUV`,
        '------END USER NKEY SEED------',
      ].join('\n');
      const scrubbed = scrub(creds);
      expect(scrubbed).toContain('-----BEGIN NATS USER JWT-----\n[redacted:jwt]\n------END NATS USER JWT------');
      expect(scrubbed).toContain('-----BEGIN USER NKEY SEED-----\n[redacted:private-key]\n------END USER NKEY SEED------');
      expect(scrubbed).not.toMatch(/eyJ|SUAM/);
    });

    it('redacts the credentials of an Authorization header', () => {
      expect(scrub('> Authorization: Bearer abc.def-ghi_jkl~123\n')).toBe('> Authorization: Bearer [redacted:authorization]\n');
    });

    it('leaves ordinary code and addresses alone', () => {
      const code = [
        "const url = 'http://localhost:3000/api?next=a@b';",
        'git@github.com:org/repo.git https://user@example.com/x',
        'const task = "disk-usage-report-generator-for-everyone";',
        'import { ghost } from "./sk-helpers"; // sk-short',
        'const token = getAccessToken(); password: z.string().min(8)',
        'BEGIN PRIVATE KEY handling is described in docs/keys.md',
      ].join('\n');
      expect(scrub(code)).toBe(code);
    });

    it('stays fast on long lines built to make regular expressions backtrack', () => {
      const hostile = [
        'a.'.repeat(100_000),
        'eyJ'.repeat(50_000),
        `${'x://'.repeat(30_000)}:`,
        '-----BEGIN PRIVATE KEY-----'.repeat(5_000),
      ];
      for (const text of hostile) expect(scrub(text).length).toBeGreaterThan(0);
    });
  });
});
