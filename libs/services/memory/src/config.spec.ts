import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_STUCK_AFTER_MS, memoryConfigFromEnv } from './config';

describe('the memory service’s configuration', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-prices-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const table = {
    'gpt-4o-mini': { promptPerMTok: 0.15, completionPerMTok: 0.6 },
    'gpt-c': { promptPerMTok: 2, cachedPromptPerMTok: 0.2, completionPerMTok: 8 },
  };

  it('defaults to no prices, a ten-minute stuck threshold and a wait just under the 30 s request timeout', () => {
    expect(memoryConfigFromEnv({})).toEqual({ prices: {}, stuckAfterMs: DEFAULT_STUCK_AFTER_MS, waitMs: 29_000 });
    expect(DEFAULT_STUCK_AFTER_MS).toBe(600_000);
    expect(memoryConfigFromEnv({ STAGECRAFT_PRICES: ' ', STAGECRAFT_STUCK_AFTER_MS: '' }).prices).toEqual({});
  });

  it('reads prices inline or from the JSON file the variable names', () => {
    const file = join(dir, 'prices.json');
    writeFileSync(file, JSON.stringify(table));
    expect(memoryConfigFromEnv({ STAGECRAFT_PRICES: JSON.stringify(table) }).prices).toEqual(table);
    expect(memoryConfigFromEnv({ STAGECRAFT_PRICES: file }).prices).toEqual(table);
  });

  it('takes the stuck threshold, and waits a tenth (at most a second) less than the request timeout', () => {
    expect(memoryConfigFromEnv({ STAGECRAFT_STUCK_AFTER_MS: '90000', STAGECRAFT_REQUEST_TIMEOUT_MS: '500' })).toMatchObject({
      stuckAfterMs: 90_000,
      waitMs: 450,
    });
  });

  it.each([
    [
      'a price that is not a number',
      { STAGECRAFT_PRICES: '{"m": {"promptPerMTok": "1", "completionPerMTok": 1}}' },
      ['STAGECRAFT_PRICES', 'm', 'promptPerMTok'],
    ],
    [
      'a negative price',
      { STAGECRAFT_PRICES: '{"m": {"promptPerMTok": -1, "completionPerMTok": 1}}' },
      ['STAGECRAFT_PRICES', 'm', 'promptPerMTok'],
    ],
    [
      'a negative cached price',
      { STAGECRAFT_PRICES: '{"m": {"promptPerMTok": 1, "cachedPromptPerMTok": -0.1, "completionPerMTok": 1}}' },
      ['STAGECRAFT_PRICES', 'm', 'cachedPromptPerMTok'],
    ],
    ['a misspelt field', { STAGECRAFT_PRICES: '{"m": {"promptPerMtok": 1, "completionPerMTok": 1}}' }, ['STAGECRAFT_PRICES', 'm']],
    ['inline text that is not JSON', { STAGECRAFT_PRICES: '{"m": ' }, ['STAGECRAFT_PRICES']],
    ['a file that does not exist', { STAGECRAFT_PRICES: '/nonexistent/prices.json' }, ['STAGECRAFT_PRICES']],
    ['a stuck threshold of zero', { STAGECRAFT_STUCK_AFTER_MS: '0' }, ['STAGECRAFT_STUCK_AFTER_MS']],
    ['a request timeout that is not a number', { STAGECRAFT_REQUEST_TIMEOUT_MS: 'long' }, ['STAGECRAFT_REQUEST_TIMEOUT_MS']],
  ])('refuses %s with a VALIDATION error naming the variable', (_what, env, path) => {
    let thrown: unknown;
    try {
      memoryConfigFromEnv(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/^invalid configuration: STAGECRAFT_/),
      issues: expect.arrayContaining([expect.objectContaining({ path })]),
    });
  });

  it('refuses a price file that holds no JSON, naming the file', () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, 'gpt: 1');
    expect(() => memoryConfigFromEnv({ STAGECRAFT_PRICES: file })).toThrow(`STAGECRAFT_PRICES: the price file ${file} is not JSON`);
  });
});
