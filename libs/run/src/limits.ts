/** Bounds that keep a run finite whatever the model does. */
export interface RunLimits {
  maxToolIterations: number;
  maxDeliveryChecks: number;
  maxCorrectionsPerStage: number;
  maxDelegationDepth: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxToolIterations: 12,
  maxDeliveryChecks: 3,
  maxCorrectionsPerStage: 2,
  maxDelegationDepth: 3,
};
