import { DelegationState, StagePolicy } from '@stagecraft/contracts';
import { Knowledge, Need, delegationKey } from '@stagecraft/run';
import { DriverPorts } from './driver-ports';

/**
 * What one run has learnt from other services: the stage policies per delegation chain (asked once
 * per chain, through `policy.table`) and, for one decision at a time, the recovery prompts it asked for.
 */
export class RunKnowledge {
  private readonly policyTables = new Map<string, readonly StagePolicy[]>();
  private prompts = new Map<string, string>();

  constructor(private readonly ports: DriverPorts) {}

  /** The view one decision sees: prompts fetched for an earlier decision are stale (their variables moved on). */
  forDecision(fresh: boolean): Knowledge {
    if (fresh) this.prompts = new Map();
    return {
      policies: (delegation: DelegationState) => this.policyTables.get(delegationKey(delegation)),
      prompt: (promptId: string) => this.prompts.get(promptId),
    };
  }

  async fetch(need: Need): Promise<void> {
    if (need.kind === 'policies') {
      const { policies } = await this.ports.requester.request('policy.table', need.request);
      this.policyTables.set(delegationKey(need.request.delegation), policies);
      return;
    }
    const { system } = await this.ports.requester.request('prompt.assemble', need.request);
    this.prompts.set(need.promptId, system);
  }
}
