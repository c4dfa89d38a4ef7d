import { usage } from '../log.testing';
import { costOf } from './cost';

const prices = { 'gpt-a': { promptPerMTok: 2.5, completionPerMTok: 10 }, qa: { promptPerMTok: 0.15, completionPerMTok: 0.6 } };

describe('the cost of a run', () => {
  it('prices each model’s prompt and completion tokens per million', () => {
    expect(costOf({ 'gpt-a': usage(1_000_000, 100_000), qa: usage(200_000, 10_000) }, prices)).toEqual({
      amount: 3.536,
      currency: 'USD',
      priced: true,
    });
  });

  it('counts nothing for a model without a price, and says the cost is not fully priced', () => {
    expect(costOf({ 'gpt-a': usage(400_000, 0), local: usage(5_000_000, 5_000_000) }, prices)).toEqual({
      amount: 1,
      currency: 'USD',
      priced: false,
    });
  });

  it('is zero and priced for a run without tokens, and follows a new price table without anything stored', () => {
    expect(costOf({}, {})).toEqual({ amount: 0, currency: 'USD', priced: true });
    const tokens = { 'gpt-a': usage(3, 7) };
    expect(costOf(tokens, prices).amount).toBe(0.0000775);
    expect(costOf(tokens, { 'gpt-a': { promptPerMTok: 1, completionPerMTok: 1 } }).amount).toBe(0.00001);
  });

  it('prices cached prompt tokens at the cached price, and at the prompt price when a model has none', () => {
    const tokens = { 'gpt-a': { ...usage(1_000_000, 0), cachedPromptTokens: 800_000 } };
    const cachedPrice = { 'gpt-a': { promptPerMTok: 2.5, cachedPromptPerMTok: 0.25, completionPerMTok: 10 } };
    expect(costOf(tokens, cachedPrice)).toEqual({ amount: 0.7, currency: 'USD', priced: true });
    expect(costOf(tokens, prices)).toEqual({ amount: 2.5, currency: 'USD', priced: true });
  });

  it('never prices more cached tokens than the prompt had', () => {
    const tokens = { 'gpt-a': { ...usage(100, 0), cachedPromptTokens: 1_000 } };
    expect(costOf(tokens, { 'gpt-a': { promptPerMTok: 1, cachedPromptPerMTok: 2, completionPerMTok: 0 } }).amount).toBe(0.0002);
  });

  it('does not take a model named after an Object property for a priced one', () => {
    expect(costOf({ constructor: usage(1, 1) }, prices)).toEqual({ amount: 0, currency: 'USD', priced: false });
  });
});
