/** Bounds that keep a run finite whatever the model does. */
export interface RunLimits {
  maxToolIterations: number;
  maxDeliveryChecks: number;
  maxCorrectionsPerStage: number;
  maxDelegationDepth: number;
  /** Tokens every request of the run must fit in: the window of the smallest model the run may ask. */
  contextWindow: number;
}

/**
 * The bounds of a run that sets none: the conversation service's settings (`STAGECRAFT_MAX_TOOL_ROUNDS`,
 * `STAGECRAFT_MAX_DELIVERY_CHECKS`) go over the first two, and a request's `limits` over those. A run
 * keeps the bounds it started with (`RunStarted.limits`), whichever replica drives it on.
 */
export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxToolIterations: 12,
  maxDeliveryChecks: 3,
  maxCorrectionsPerStage: 2,
  maxDelegationDepth: 3,
  contextWindow: 128_000,
};
