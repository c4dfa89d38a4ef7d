import type { PriceTable, RunCost, TokensByModel } from '@stagecraft/contracts';
import { entryOf } from '../logged';

const PER_MILLION = 1_000_000;
/** Amounts are kept to a billionth of a dollar, so that summing in floating point leaves no trailing noise. */
const round = (amount: number): number => Math.round(amount * 1e9) / 1e9;

/**
 * What the tokens cost at these prices. Computed when a run is read, never stored: a price change needs
 * no rebuild. A model without a price adds nothing and makes the cost `priced: false`. Prompt tokens
 * served from the provider's cache are priced at `cachedPromptPerMTok`, or at the prompt price without one.
 */
export function costOf(tokens: TokensByModel, prices: PriceTable): RunCost {
  let amount = 0;
  let priced = true;
  for (const [model, usage] of Object.entries(tokens)) {
    const price = entryOf(prices, model);
    if (!price) {
      priced = false;
      continue;
    }
    const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
    const fresh = usage.promptTokens - cached;
    amount +=
      (fresh * price.promptPerMTok +
        cached * (price.cachedPromptPerMTok ?? price.promptPerMTok) +
        usage.completionTokens * price.completionPerMTok) /
      PER_MILLION;
  }
  return { amount: round(amount), currency: 'USD', priced };
}
