import { Instruction, PreviousAttempt, PromptVariables, RecalledMemory, StagePolicy, UpstreamContext } from '@stagecraft/contracts';

export interface PromptContributionContext {
  readonly agentType: string;
  readonly policy: StagePolicy;
  readonly variables: PromptVariables;
  readonly instructions: readonly Instruction[];
  /** From the assemble request; absent when the caller sent none. */
  readonly upstream?: readonly UpstreamContext[];
  readonly previousAttempt?: PreviousAttempt;
  /** Memories recalled for the user's message; absent when the caller recalled none. */
  readonly recalled?: readonly RecalledMemory[];
  /** The project's layout and entry points from the codebase index (warmup); absent when none was sent. */
  readonly projectMap?: string;
  /** The run's delegation depth limit; absent when the caller sent none (then delegation is not offered). */
  readonly maxDelegationDepth?: number;
}

/**
 * A section added to the system prompt by a capability (seed 001), after the policy's prompts.
 * `contribute` must be pure: the assembled prompt and its hash depend on it.
 */
export interface PromptContributor {
  readonly name: string;
  readonly agentTypes: readonly string[] | 'all';
  /** Lower comes first; ties are broken by name. */
  readonly priority: number;
  appliesTo?(policy: StagePolicy): boolean;
  /**
   * The section depends only on what the run started with, so it is the same in every stage of the run:
   * a split assembly puts it in the system message, before the history (docs/decisions/0052).
   */
  readonly runWide?: boolean;
  /** `null` (or blank text) contributes nothing this time. */
  contribute(context: PromptContributionContext): string | null;
}
