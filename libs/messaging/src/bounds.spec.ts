import { StagecraftError, StructureLimits, ToolExecuteRequest, structureExcess } from '@stagecraft/contracts';
import { prng } from '@stagecraft/testing';
import { DEFAULT_STRUCTURE_LIMITS, checkJsonText, checkValue } from './bounds';

const UNLIMITED: StructureLimits = { maxDepth: 1_000, maxValues: 1e9, maxItems: 1e9 };

/** The exact structure of a value, counted the slow, obvious way. */
function measure(value: unknown, depth = 0): { depth: number; values: number; items: number } {
  if (typeof value !== 'object' || value === null) return { depth, values: 1, items: 0 };
  const children = Object.values(value);
  const inner = children.map((child) => measure(child, depth + 1));
  return {
    depth: Math.max(depth + 1, ...inner.map((m) => m.depth)),
    values: 1 + inner.reduce((sum, m) => sum + m.values, 0),
    items: Math.max(children.length, ...inner.map((m) => m.items)),
  };
}

/** Values whose strings hold what a scanner could mistake for structure: brackets, commas, quotes, backslashes. */
function randomValue(next: () => number, depth = 0): unknown {
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const text = () =>
    Array.from({ length: Math.floor(next() * 8) }, () => pick(['a', '"', '\\', '[', ']', '{', '}', ',', ':', '\\"', '😀'])).join('');
  switch (depth > 5 ? 0 : Math.floor(next() * 3)) {
    case 0:
      return pick([text(), 1.5, -0, true, null, 12e30]);
    case 1:
      return Array.from({ length: Math.floor(next() * 5) }, () => randomValue(next, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [text(), randomValue(next, depth + 1)]));
  }
}

const refusal = (check: () => void): { code: string; message: string; path: unknown[] } | null => {
  try {
    check();
    return null;
  } catch (error) {
    if (!(error instanceof StagecraftError)) throw error;
    const { code, issues } = error;
    return { code, message: issues[0].code ?? '', path: issues[0].path };
  }
};

describe('structure limits before parsing (text lane) and before validation (value lane)', () => {
  it('both lanes count what JSON.parse would build, exactly: at a limit passes, one under it refuses', () => {
    const next = prng(34);
    for (let i = 0; i < 400; i++) {
      const value = randomValue(next);
      const text = JSON.stringify(value, null, next() < 0.5 ? 0 : 2);
      const m = measure(value);
      const exact: StructureLimits = { maxDepth: m.depth, maxValues: m.values, maxItems: m.items };
      expect(refusal(() => checkJsonText(text, exact))).toBeNull();
      expect(refusal(() => checkValue(value, exact))).toBeNull();
      const cases: [Partial<StructureLimits>, string][] = [
        [{ maxDepth: m.depth - 1 }, 'too_deep'],
        [{ maxValues: m.values - 1 }, 'too_many_values'],
        [{ maxItems: m.items - 1 }, 'too_many_items'],
      ];
      for (const [tighter, code] of cases) {
        // A limit below zero means nothing, and every request has at least its root value.
        if ((tighter.maxDepth ?? tighter.maxItems ?? 0) < 0 || (tighter.maxValues ?? 1) < 1) continue;
        const limits = { ...UNLIMITED, ...tighter };
        expect({ text: refusal(() => checkJsonText(text, limits))?.message }).toEqual({ text: code });
        expect({ value: refusal(() => checkValue(value, limits))?.message }).toEqual({ value: code });
      }
    }
  });

  it("refuses the hardening issue's workflow.next (349,000 empty strings) at item 10,001, naming where", () => {
    const text = JSON.stringify({ workflowId: 'w', completedSteps: Array(349_000).fill('') });
    expect(refusal(() => checkJsonText(text, DEFAULT_STRUCTURE_LIMITS))).toEqual({
      code: 'LIMIT_EXCEEDED',
      message: 'too_many_items',
      path: ['completedSteps', 10_000],
    });
    expect(refusal(() => checkValue(JSON.parse(text), DEFAULT_STRUCTURE_LIMITS))).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      path: ['completedSteps'],
    });
  });

  it('refuses 100,000 levels on either lane without a stack, naming the path down to the limit', () => {
    const text = `{"arguments":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    const fromText = refusal(() => checkJsonText(text, DEFAULT_STRUCTURE_LIMITS));
    expect(fromText).toMatchObject({ code: 'LIMIT_EXCEEDED', message: 'too_deep' });
    expect(fromText?.path).toEqual(['arguments', ...Array(63).fill('a')]);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(refusal(() => checkValue({ arguments: deep }, DEFAULT_STRUCTURE_LIMITS))).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'too_deep',
    });
  });

  it('counts many values spread over small arrays, and keys escaped in every way', () => {
    const spread = JSON.stringify(Array.from({ length: 3_000 }, () => [1, 2, 3, 4, 5, 6, 7]));
    expect(refusal(() => checkJsonText(spread, DEFAULT_STRUCTURE_LIMITS))).toMatchObject({ message: 'too_many_values' });
    const key = 'k\\"[,{\u2028😀';
    const text = JSON.stringify({ [key]: Array(20).fill(0) });
    expect(refusal(() => checkJsonText(text, { ...UNLIMITED, maxItems: 10 }))?.path).toEqual([key, 10]);
  });

  it('leaves invalid JSON to JSON.parse: an unterminated string or stray closers do not throw here', () => {
    for (const text of ['"open', ']]]}}', '{"a":[1,2', '\\', ''])
      expect(refusal(() => checkJsonText(text, DEFAULT_STRUCTURE_LIMITS))).toBeNull();
  });
});

describe('tool.execute arguments (bounded by the contract, so nothing deep is recorded)', () => {
  const request = (args: unknown) => ({
    callId: 'c-1',
    runId: 'r-1',
    tool: 'read_file',
    arguments: args,
    stage: 'act',
    userMode: 'agent',
    reasoningEnabled: false,
    projectRoot: '/p',
  });

  it('accepts what tools take, refuses 17 levels or 10,001 values with a VALIDATION issue inside arguments', () => {
    expect(ToolExecuteRequest.safeParse(request({ command: 'ls', args: ['-la', 'src'] })).success).toBe(true);
    let deep: unknown = {};
    for (let i = 0; i < 16; i++) deep = { a: deep };
    const refused = ToolExecuteRequest.safeParse(request({ path: 'x', deep }));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({
      path: ['arguments', 'deep', ...Array(15).fill('a')],
      message: 'nested more than 16 levels deep',
    });
    const wide = ToolExecuteRequest.safeParse(request({ lists: Array.from({ length: 3 }, () => Array(4_000).fill(0)) }));
    expect(wide.error?.issues[0].message).toBe('more than 10,000 values in all');
  });

  it('is one walk with the value lane: the same excess at the same place', () => {
    const args = { a: [[[[]]]] };
    expect(structureExcess(args, { ...UNLIMITED, maxDepth: 4 })).toEqual({
      path: ['a', 0, 0, 0],
      message: 'nested more than 4 levels deep',
      code: 'too_deep',
    });
  });
});
