import { headers as natsHeaders } from '@nats-io/transport-node';
import { StagecraftEvent } from '@stagecraft/contracts';
import { prng } from '@stagecraft/testing';
import { jsonSizeIfOver, jsonUpperBound } from './json-size';
import { shrinkToFit } from './shrink';
import { wireBytes } from './wire-size';

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Values with the characters JSON escapes or widens: controls, quotes, lone surrogates, emoji, accents. */
function randomValue(next: () => number, depth = 0): unknown {
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const text = () =>
    Array.from({ length: Math.floor(next() * 40) }, () => pick(['a', '"', '\\', '\u0000', '\n', '\ud800', '😀', 'é', '\u2028'])).join('');
  switch (depth > 4 ? 0 : Math.floor(next() * 4)) {
    case 0:
      return pick([text(), -1.7976931348623157e308, 5e-324, 0.1 + 0.2, -0, true, null, 123456789012345680000]);
    case 1:
      return Array.from({ length: Math.floor(next() * 6) }, () => randomValue(next, depth + 1));
    case 2:
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 6) }, () => [text(), randomValue(next, depth + 1)]));
    default:
      return [undefined, new Date(0), { skipped: undefined }];
  }
}

describe('jsonSizeIfOver (the local lane measures what the text lane would send)', () => {
  it('never says a value fits when its JSON is over the limit, and gives the exact size when it is', () => {
    const next = prng(12);
    for (let i = 0; i < 500; i++) {
      const value = randomValue(next);
      const exact = bytesOf(value);
      expect(jsonUpperBound(value, Infinity)).toBeGreaterThanOrEqual(exact);
      for (const limit of [exact - 1, exact, exact + 1]) expect(jsonSizeIfOver(value, limit)).toBe(exact > limit ? exact : null);
    }
  });

  it('walks 100,000 levels of nesting without a stack (JSON.stringify itself cannot)', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonSizeIfOver(deep, 1_000_000)).toBeNull();
  });

  it('stops walking once the bound passes the limit', () => {
    const many = Array.from({ length: 1_000_000 }, () => 'x');
    expect(jsonUpperBound(many, 100)).toBeLessThan(1_000_100);
  });
});

describe('wireBytes (what NATS counts against max_payload)', () => {
  it('counts headers exactly as nats.js encodes them', () => {
    const headers = { 'stagecraft-correlation-id': 'c-1', 'x-note': 'ü' };
    const h = natsHeaders();
    for (const [key, value] of Object.entries(headers)) h.set(key, value);
    // What nats.js's publish adds to the body's length before comparing with max_payload.
    const encoded = (h as unknown as { encode(): Uint8Array }).encode();
    expect(wireBytes('body é', headers)).toBe(Buffer.byteLength('body é') + encoded.length);
    expect(wireBytes('body', {})).toBe(4);
  });
});

describe('shrinkToFit (published events over the limit)', () => {
  const event = (content: string, text: string): StagecraftEvent => ({
    type: 'ReasoningRecorded',
    data: {
      requestId: 'req-1',
      format: 'micro',
      text,
      outcome: { plan_delta: content, next_action: 'none', known_risks: 'none', delivery_state: 'NEEDS_WORK', notes: [] },
    },
    metadata: { runId: 'run-1', correlationId: 'corr-1', occurredAt: '2026-11-01T00:00:00.000Z' },
  });
  const schema = StagecraftEvent;
  const note = 'the full event is in the store';

  it('leaves a message that fits untouched', () => {
    const small = event('plan', 'text');
    expect(shrinkToFit(small, schema, 10_000, note)).toBe(JSON.stringify(small));
  });

  it('cuts the largest strings first, to a head and a marker, and the result still passes the schema', () => {
    const big = event('p'.repeat(50_000), 't'.repeat(200_000));
    const body = shrinkToFit(big, schema, 100_000, note) as string;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(100_000);
    expect(schema.safeParse(JSON.parse(body)).success).toBe(true);
    const { data } = JSON.parse(body);
    expect(data.text).toBe(`${'t'.repeat(2048)}[… ${200_000 - 2048} bytes cut; ${note}]`);
    expect(data.outcome.plan_delta).toBe('p'.repeat(50_000));
  });

  it('keeps only markers when heads are too much, and gives up (null) when no cut can make it fit', () => {
    const many = event('p'.repeat(3_000), 't'.repeat(3_000));
    const body = shrinkToFit(many, schema, 700, note) as string;
    expect(JSON.parse(body).data.text).toBe(`[… 3000 bytes cut; ${note}]`);
    expect(shrinkToFit(many, schema, 100, note)).toBeNull();
  });

  it('never cuts a surrogate pair in half', () => {
    const emoji = event('x', `${'a'.repeat(2047)}${'😀'.repeat(10_000)}`);
    const text = JSON.parse(shrinkToFit(emoji, schema, 5_000, note) as string).data.text as string;
    expect(text.startsWith(`${'a'.repeat(2047)}[…`)).toBe(true);
  });
});
