import { parseReasoning } from './parse-reasoning';

const block = (body: string, after = 'I will read the README first.') => `<ide_reasoning>\n${body}\n</ide_reasoning>\n${after}`;

const colonStyle = `Analyze: The user wants a summary of the project.
Research: README.md and package.json.
Plan: 1) list the root; 2) read the README; 3) write notes.
Reflect: The README may be stale.
Action: list_dir on '.'
Delivery: NEEDS_WORK`;

const headingStyle = `## Analyze
The user wants a summary of the project.

## Research
README.md and package.json.

## Plan
- list the root
- read the README
- write notes

## Reflect
The README may be stale;
its examples may not run.

## Action
list_dir on '.'

## Delivery
NEEDS_WORK`;

describe('parseReasoning, macro format', () => {
  it.each([
    ['Name: lines', colonStyle, '1) list the root; 2) read the README; 3) write notes.', 'The README may be stale.'],
    ['## Name headings', headingStyle, 'list the root; read the README; write notes', 'The README may be stale; its examples may not run.'],
    [
      'mixed case',
      colonStyle.replace('Analyze:', 'ANALYZE:').replace('Plan:', 'plan:').replace('Delivery: NEEDS_WORK', 'delivery: needs_work'),
      '1) list the root; 2) read the README; 3) write notes.',
      'The README may be stale.',
    ],
    [
      'extra whitespace',
      colonStyle.replace(/^(\w+):/gm, '   $1   :   ').replace(/\n/g, '\n\n  '),
      '1) list the root; 2) read the README; 3) write notes.',
      'The README may be stale.',
    ],
    [
      'bold names and headings with colons',
      colonStyle.replace(/^(\w+):/gm, '**$1:**').replace('**Plan:**', '### Plan:'),
      '1) list the root; 2) read the README; 3) write notes.',
      'The README may be stale.',
    ],
    [
      'the British spelling',
      colonStyle.replace('Analyze:', 'Analyse:'),
      '1) list the root; 2) read the README; 3) write notes.',
      'The README may be stale.',
    ],
  ])('reads %s', (_name, body, planDelta, risks) => {
    const parsed = parseReasoning(block(body), 'macro');
    expect(parsed).toEqual({
      ok: true,
      format: 'macro',
      block: `<ide_reasoning>\n${body}\n</ide_reasoning>`,
      outcome: { plan_delta: planDelta, next_action: "list_dir on '.'", known_risks: risks, delivery_state: 'NEEDS_WORK', notes: [] },
      visible: 'I will read the README first.',
    });
  });

  it.each([
    ['NEEDS_WORK', 'NEEDS_WORK'],
    ['`NEEDS_WORK` until the notes exist', 'NEEDS_WORK'],
    ['needs work', 'NEEDS_WORK'],
    ['Needs-Work', 'NEEDS_WORK'],
    ['DONE', 'DONE'],
    ['**done**', 'DONE'],
  ])('reads Delivery %p as %s', (value, state) => {
    const parsed = parseReasoning(block(colonStyle.replace('Delivery: NEEDS_WORK', `Delivery: ${value}`)), 'macro');
    expect(parsed.ok && parsed.outcome.delivery_state).toBe(state);
  });

  it.each([
    ['Research', ['Research']],
    ['Reflect', ['Reflect']],
    ['Delivery', ['Delivery']],
  ])('names the missing section %s', (section, named) => {
    const body = colonStyle
      .split('\n')
      .filter((line) => !line.startsWith(`${section}:`))
      .join('\n');
    const parsed = parseReasoning(block(body), 'macro');
    expect(parsed).toMatchObject({ ok: false, format: 'macro', problem: 'missing_sections', visible: 'I will read the README first.' });
    expect(!parsed.ok && parsed.detail).toBe(`missing or empty sections: ${named.join(', ')}`);
  });

  it('names every missing section, and counts an empty one as missing', () => {
    const parsed = parseReasoning(block('Analyze: x\nPlan:\nAction: y\nDelivery: NEEDS_WORK'), 'macro');
    expect(!parsed.ok && [parsed.problem, parsed.detail]).toEqual([
      'missing_sections',
      'missing or empty sections: Research, Plan, Reflect',
    ]);
  });

  it('does not take a longer word for a section name', () => {
    const parsed = parseReasoning(block(colonStyle.replace('Plan: ', 'Planning: ')), 'macro');
    expect(!parsed.ok && parsed.detail).toBe('missing or empty sections: Plan');
  });

  it('rejects a Delivery that is neither NEEDS_WORK nor DONE', () => {
    const parsed = parseReasoning(block(colonStyle.replace('Delivery: NEEDS_WORK', 'Delivery: almost there')), 'macro');
    expect(parsed).toMatchObject({ ok: false, problem: 'malformed', detail: "Delivery must be NEEDS_WORK or DONE, got 'almost there'" });
  });

  it('keeps the first of two sections with the same name', () => {
    const parsed = parseReasoning(block(`${colonStyle}\nAction: something else`), 'macro');
    expect(parsed.ok && parsed.outcome.next_action).toBe("list_dir on '.'");
  });

  it('reports a missing block, keeping the whole text visible', () => {
    expect(parseReasoning('  I will just do it.  ', 'macro')).toEqual({
      ok: false,
      format: 'macro',
      problem: 'missing',
      detail: 'no <ide_reasoning> block found',
      visible: 'I will just do it.',
    });
  });

  it('reports an unterminated block as malformed and hides it', () => {
    const parsed = parseReasoning(`Next steps.\n<ide_reasoning>\n${colonStyle}`, 'macro');
    expect(parsed).toMatchObject({ ok: false, problem: 'malformed', visible: 'Next steps.' });
    expect(!parsed.ok && parsed.detail).toMatch(/never closed/);
  });

  it('uses the first of two blocks, and hides both', () => {
    const second = colonStyle.replace('Delivery: NEEDS_WORK', 'Delivery: DONE');
    const parsed = parseReasoning(`${block(colonStyle, 'Plan stated.')}\n<ide_reasoning>\n${second}\n</ide_reasoning>\nTail.`, 'macro');
    expect(parsed.ok && parsed.outcome.delivery_state).toBe('NEEDS_WORK');
    expect(parsed.ok && parsed.block).toBe(`<ide_reasoning>\n${colonStyle}\n</ide_reasoning>`);
    expect(parsed.visible).toBe('Plan stated.\n\nTail.');
  });
});
