import { ReasoningOutcome } from '@stagecraft/contracts';
import { containsReasoning } from './block';
import { parseReasoning } from './parse-reasoning';
import { renderOutcome } from './render-outcome';

const outcome = (patch: Partial<ReasoningOutcome> = {}): ReasoningOutcome => ({
  plan_delta: 'also update src/load.ts',
  next_action: 'apply the patch',
  known_risks: 'a dynamic caller',
  delivery_state: 'NEEDS_WORK',
  notes: [],
  ...patch,
});

describe('renderOutcome', () => {
  it('renders the four fields, one a line', () => {
    expect(renderOutcome(outcome())).toBe(
      'Plan delta: also update src/load.ts\nNext action: apply the patch\nKnown risks: a dynamic caller\nDelivery: NEEDS_WORK',
    );
  });

  it('adds notes on one line and says none for empty fields', () => {
    expect(
      renderOutcome(
        outcome({ plan_delta: '', known_risks: '  ', delivery_state: 'DONE', notes: ['two callers', '', 'tests were red before'] }),
      ),
    ).toBe('Plan delta: none\nNext action: apply the patch\nKnown risks: none\nDelivery: DONE\nNotes: two callers; tests were red before');
  });

  it.each([
    ['a tag in a field', outcome({ next_action: 'write <ide_reasoning> again' })],
    ['a closing tag in a note', outcome({ notes: ['</ide_reasoning> leaked'] })],
    ['a spaced tag', outcome({ known_risks: '< IDE_REASONING >' })],
    ['multi-line fields', outcome({ plan_delta: 'one\ntwo\n\nthree' })],
  ])('never carries a reasoning tag or a line break inside a field: %s', (_name, value) => {
    const rendered = renderOutcome(value);
    expect(containsReasoning(rendered)).toBe(false);
    expect(rendered).not.toContain('<ide_reasoning>');
    expect(rendered.split('\n').length).toBe(4 + (value.notes.length > 0 ? 1 : 0));
  });

  it('renders what the parser read, without the block it came from', () => {
    const parsed = parseReasoning(
      '<ide_reasoning>\n- saw two callers\n- Plan delta: patch both\n- Next action: apply_patch\n- Known risks: none\n- Delivery: NEEDS_WORK\n</ide_reasoning>\nPatching.',
      'micro',
    );
    if (!parsed.ok) throw new Error(parsed.detail);
    const rendered = renderOutcome(parsed.outcome);
    expect(rendered).toBe(
      'Plan delta: patch both\nNext action: apply_patch\nKnown risks: none\nDelivery: NEEDS_WORK\nNotes: saw two callers',
    );
    expect(rendered).not.toContain('<ide_reasoning>');
  });
});
