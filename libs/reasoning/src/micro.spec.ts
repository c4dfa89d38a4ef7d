import { parseReasoning } from './parse-reasoning';

const bullets = (lines: string[], marker = '-') => lines.map((line) => `${marker} ${line}`).join('\n');
const block = (body: string) => `<ide_reasoning>\n${body}\n</ide_reasoning>\n\nReading the file now.`;

const labelled = [
  'The listing shows a README.md at the root.',
  'Plan delta: none',
  'Next action: read_file README.md',
  'Known risks: the README may be outdated',
  'Delivery: NEEDS_WORK',
];

describe('parseReasoning, micro format', () => {
  it('fills the outcome from labelled bullets and keeps the others as notes', () => {
    const parsed = parseReasoning(block(bullets(labelled)), 'micro');
    expect(parsed).toEqual({
      ok: true,
      format: 'micro',
      block: `<ide_reasoning>\n${bullets(labelled)}\n</ide_reasoning>`,
      outcome: {
        plan_delta: 'none',
        next_action: 'read_file README.md',
        known_risks: 'the README may be outdated',
        delivery_state: 'NEEDS_WORK',
        notes: ['The listing shows a README.md at the root.'],
      },
      visible: 'Reading the file now.',
    });
  });

  it.each([
    ['-', '-'],
    ['*', '*'],
    ['•', '•'],
    ['numbered', '1.'],
    ['numbered with parentheses', '2)'],
  ])('accepts %s bullets', (_name, marker) => {
    const parsed = parseReasoning(block(bullets(labelled, marker)), 'micro');
    expect(parsed.ok && parsed.outcome.next_action).toBe('read_file README.md');
  });

  it.each([
    [3, true],
    [8, true],
    [2, 'too_short'],
    [9, 'too_long'],
    [0, 'too_short'],
  ])('with %i bullets → %p', (count, expected) => {
    const lines = Array.from({ length: count }, (_, i) => `observation ${i + 1}`);
    const parsed = parseReasoning(block(bullets(lines)), 'micro');
    if (expected === true) expect(parsed.ok).toBe(true);
    else expect(parsed).toMatchObject({ ok: false, problem: expected, detail: `3 to 8 bullets required, found ${count}` });
  });

  it.each([
    ['Delivery: done', 'DONE'],
    ['DELIVERY:DONE', 'DONE'],
    ['delivery :  Needs_Work', 'NEEDS_WORK'],
    ['**Delivery:** `DONE`', 'DONE'],
    ['`Delivery:` NEEDS_WORK — tests not run yet', 'NEEDS_WORK'],
  ])('reads %p as %s', (line, state) => {
    const parsed = parseReasoning(block(bullets(['a', 'b', line])), 'micro');
    expect(parsed.ok && parsed.outcome.delivery_state).toBe(state);
  });

  it('takes a missing Delivery bullet as NEEDS_WORK', () => {
    const parsed = parseReasoning(block(bullets(['a', 'Next action: final answer', 'Known risks: none'])), 'micro');
    expect(parsed.ok && parsed.outcome).toEqual({
      plan_delta: '',
      next_action: 'final answer',
      known_risks: 'none',
      delivery_state: 'NEEDS_WORK',
      notes: ['a'],
    });
  });

  it('rejects a Delivery that is neither state', () => {
    const parsed = parseReasoning(block(bullets(['a', 'b', 'Delivery: soon'])), 'micro');
    expect(parsed).toMatchObject({ ok: false, problem: 'malformed', detail: "Delivery must be NEEDS_WORK or DONE, got 'soon'" });
  });

  it('is lenient about case, spacing and bold in labels', () => {
    const parsed = parseReasoning(
      block(
        bullets([
          'PLAN DELTA:   read the tests too',
          '**Next action**: run `npm test`',
          'known risk: flaky suite',
          'Nextaction: ignored repeat',
        ]),
      ),
      'micro',
    );
    expect(parsed.ok && parsed.outcome).toEqual({
      plan_delta: 'read the tests too',
      next_action: 'run `npm test`',
      known_risks: 'flaky suite',
      delivery_state: 'NEEDS_WORK',
      notes: ['Nextaction: ignored repeat'],
    });
  });

  it('keeps code in notes as written', () => {
    const parsed = parseReasoning(block(bullets(['`npm test` failed in `pkg/a`', 'b', 'c'])), 'micro');
    expect(parsed.ok && parsed.outcome.notes).toEqual(['`npm test` failed in `pkg/a`', 'b', 'c']);
  });

  it('joins a wrapped line to its bullet and counts an unmarked labelled line as a bullet', () => {
    const body = '- The search found two callers;\n  only one passes a path.\n- Next action: patch both\nDelivery: DONE';
    const parsed = parseReasoning(block(body), 'micro');
    expect(parsed.ok && parsed.outcome).toMatchObject({
      next_action: 'patch both',
      delivery_state: 'DONE',
      notes: ['The search found two callers; only one passes a path.'],
    });
  });

  it('reports a missing block', () => {
    expect(parseReasoning('Just the answer.', 'micro')).toEqual({
      ok: false,
      format: 'micro',
      problem: 'missing',
      detail: 'no <ide_reasoning> block found',
      visible: 'Just the answer.',
    });
  });

  it('reports an unterminated block as malformed without leaking it', () => {
    const parsed = parseReasoning(`<ide_reasoning>\n${bullets(labelled)}`, 'micro');
    expect(parsed).toMatchObject({ ok: false, problem: 'malformed', visible: '' });
  });

  it('uses the first of two blocks and hides both', () => {
    const done = labelled.map((line) => line.replace('NEEDS_WORK', 'DONE'));
    const parsed = parseReasoning(`${block(bullets(labelled))}\n<ide_reasoning>\n${bullets(done)}\n</ide_reasoning>\nMore text.`, 'micro');
    expect(parsed.ok && parsed.outcome.delivery_state).toBe('NEEDS_WORK');
    expect(parsed.visible).toBe('Reading the file now.\n\nMore text.');
  });

  it('checks the format asked for, not the one written', () => {
    const macro = '<ide_reasoning>\nAnalyze: a\nResearch: b\nPlan: c\nReflect: d\nAction: e\nDelivery: NEEDS_WORK\n</ide_reasoning>';
    expect(parseReasoning(macro, 'micro')).toMatchObject({ ok: false, problem: 'too_short', detail: '3 to 8 bullets required, found 1' });
    expect(parseReasoning(block(bullets(labelled)), 'macro')).toMatchObject({ ok: false, problem: 'missing_sections' });
  });
});
