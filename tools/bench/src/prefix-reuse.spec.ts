import { RecordedRequest } from '@stagecraft/scripted-model';
import { cachedCostRatio, prefixReuse, sharedPrefix } from './prefix-reuse';

const request = (index: number, stage: string, messages: unknown[], tools: unknown[] = [{ name: 'read_file' }]): RecordedRequest => ({
  index,
  method: 'POST',
  path: '/chat/completions',
  headers: {},
  body: { tools, messages },
  stage,
});

describe('prefix reuse', () => {
  it('counts whole equal parts, then the common start of the first part that differs', () => {
    expect(sharedPrefix(['abc', 'def'], ['abc', 'dxx', 'ghi'])).toBe(4);
    expect(sharedPrefix(['abc'], ['abc', 'def'])).toBe(3);
    expect(sharedPrefix([], ['abc'])).toBe(0);
  });

  it('chains each caller on its own: an appended request reuses all of the previous one, QA starts its own chain', () => {
    const system = { role: 'system', content: 'base' };
    const user = { role: 'user', content: 'hi' };
    const report = prefixReuse([
      request(0, 'act', [system, user]),
      request(1, 'tool_followup', [system, user, { role: 'tool', content: 'x' }]),
      request(2, 'qa_review', [{ role: 'system', content: 'review' }]),
    ]);
    expect(report.requests).toBe(3);
    expect(report.shares).toHaveLength(1);
    const [first, second] = [
      JSON.stringify([{ name: 'read_file' }]) + JSON.stringify(system) + JSON.stringify(user),
      JSON.stringify({ role: 'tool', content: 'x' }),
    ];
    expect(report.shares[0]).toBeCloseTo(first.length / (first.length + second.length));
    expect(cachedCostRatio({ ...report, totalChars: 100, reusableChars: 90 }, 0.1)).toBeCloseTo(0.19);
  });

  it('a changed system message ends the reusable prefix inside it', () => {
    const report = prefixReuse([
      request(0, 'act', [{ role: 'system', content: 'stage act' }]),
      request(1, 'tool_followup', [{ role: 'system', content: 'stage tool_followup' }]),
    ]);
    const tools = JSON.stringify([{ name: 'read_file' }]).length;
    expect(report.reusableChars).toBe(tools + JSON.stringify({ role: 'system', content: 'stage ' }).length - 2);
  });

  it('with a shared cache, matches any earlier request and counts only from the given one', () => {
    const system = { role: 'system', content: 'base' };
    const review = { role: 'system', content: 'review' };
    const requests = [
      request(0, 'act', [system, { role: 'user', content: 'one' }]),
      request(1, 'qa_review', [review, { role: 'user', content: 'answer one' }]),
      request(2, 'warmup', [system, { role: 'user', content: 'two' }]),
      request(3, 'qa_review', [review, { role: 'user', content: 'answer two' }]),
    ];
    const tools = JSON.stringify([{ name: 'read_file' }]).length;
    const warm = prefixReuse(requests, { cache: 'shared', countFrom: 2 });
    expect(warm.requests).toBe(2);
    // Each of the second turn's requests repeats the tools and its caller's system message from the first turn.
    const userStart = JSON.stringify({ role: 'user', content: 'x' }).indexOf('x');
    expect(warm.perRequest.map((r) => r.shared)).toEqual([
      tools + JSON.stringify(system).length + userStart,
      tools + JSON.stringify(review).length + JSON.stringify({ role: 'user', content: 'answer x' }).indexOf('x'),
    ]);
    expect(prefixReuse(requests, { countFrom: 2 }).perRequest.map((r) => r.shared)).toEqual([
      tools + JSON.stringify(system).length + userStart,
      tools + JSON.stringify(review).length + JSON.stringify({ role: 'user', content: 'answer x' }).indexOf('x'),
    ]);
  });
});
