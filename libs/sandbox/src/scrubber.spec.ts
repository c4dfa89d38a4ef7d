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
});
