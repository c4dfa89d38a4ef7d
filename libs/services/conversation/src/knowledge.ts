import { DelegationState, StagePolicy, toErrorReply } from '@stagecraft/contracts';
import { parseSummary } from '@stagecraft/run';
import { hashPrompt } from '@stagecraft/model-gateway';
import { Knowledge, ModelSummary, Need, delegationKey } from '@stagecraft/run';
import { assemblePrompt } from './assemble-prompt';
import { DriverPorts } from './driver-ports';

/**
 * What one run has learnt from other services: the stage policies per delegation chain (asked once
 * per chain, through `policy.table`), for one decision at a time the recovery prompts it asked for,
 * and the summaries the model wrote for its compactions.
 */
export class RunKnowledge {
  private readonly policyTables = new Map<string, readonly StagePolicy[]>();
  private prompts = new Map<string, string>();
  private readonly summaries = new Map<string, ModelSummary>();

  constructor(private readonly ports: DriverPorts) {}

  /** The view one decision sees: prompts fetched for an earlier decision are stale (their variables moved on). */
  forDecision(fresh: boolean): Knowledge {
    if (fresh) this.prompts = new Map();
    return {
      policies: (delegation: DelegationState) => this.policyTables.get(delegationKey(delegation)),
      prompt: (promptId: string) => this.prompts.get(promptId),
      summary: (compactionId: string) => this.summaries.get(compactionId),
    };
  }

  async fetch(need: Need): Promise<void> {
    switch (need.kind) {
      case 'policies': {
        const { policies } = await this.ports.requester.request('policy.table', need.request);
        this.policyTables.set(delegationKey(need.request.delegation), policies);
        return;
      }
      case 'prompt': {
        const { system } = await assemblePrompt(this.ports, need.request);
        this.prompts.set(need.promptId, system);
        return;
      }
      case 'summary':
        this.summaries.set(need.compactionId, await this.summarise(need));
        return;
    }
  }

  /** The `model` compaction method: the summarize prompt and the transcript, one call, its answer read into sections. */
  private async summarise(need: Extract<Need, { kind: 'summary' }>): Promise<ModelSummary> {
    try {
      const { system } = await assemblePrompt(this.ports, need.assemble, need.meta.runId);
      const messages = [
        { role: 'system' as const, content: system },
        { role: 'user' as const, content: need.transcript },
      ];
      const response = await this.ports.gateway.complete(need.meta, messages, []);
      const { promptHash, tokenEstimate } = hashPrompt(messages, [], new Set());
      return {
        summary: parseSummary(response.content, need.covers),
        modelCall: {
          requestId: need.compactionId,
          model: this.ports.gateway.model,
          promptHash,
          messageCount: messages.length,
          tokenEstimate,
          latencyMs: response.latencyMs,
          usage: response.usage,
          finishReason: response.finishReason,
        },
      };
    } catch (error) {
      const { code, message } = toErrorReply(error);
      this.ports.logger.warn(
        { runId: need.meta.runId, compactionId: need.compactionId, code, err: message },
        'summary by the model failed; compacting extractively',
      );
      return { failed: `${code}: ${message}` };
    }
  }
}
