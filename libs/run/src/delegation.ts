import { AgentType, DelegateReasoning } from '@stagecraft/contracts';
import { RunLimits } from './limits';
import { PendingEvent, pending } from './pending-event';
import { Delegation } from './state';
import { RequestedInstruction } from './instruction-tags';

export interface DelegationOutcome {
  events: PendingEvent[];
  /** What the model is told next, as a user message in the conversation. */
  notes: string[];
}

const MAIN = 'main';

/**
 * Applies the delegation instructions of one reply in order. Beyond seed 000: a depth limit and
 * a refusal of loops (A → B → A), each refused with an InstructionIssued event saying why.
 */
export function applyInstructions(active: readonly Delegation[], requested: RequestedInstruction[], limits: RunLimits): DelegationOutcome {
  const events: PendingEvent[] = [];
  const notes: string[] = [];
  const stack = [...active];
  for (const r of requested) {
    if (r.kind === 'ReturnControl') {
      const top = stack.pop();
      if (!top) {
        events.push(
          pending('InstructionIssued', {
            instruction: { kind: 'ReturnControl', result: r.result },
            accepted: false,
            reason: 'no specialist is active',
          }),
        );
        notes.push('Return of control refused: no specialist is active. Continue the task.');
        continue;
      }
      events.push(pending('InstructionIssued', { instruction: { kind: 'ReturnControl', result: r.result }, accepted: true }));
      notes.push(`Specialist ${top.agentType} returned control. Its result:\n${r.result || '(no result given)'}`);
      continue;
    }
    const chain = [MAIN, ...stack.map((d) => d.agentType)];
    const instruction: DelegateReasoning = {
      kind: 'DelegateReasoning',
      agentType: r.agentType,
      agentPrompt: r.agentPrompt,
      markIntermediate: true,
    };
    const refuse = (reason: string) => {
      const recorded = r.agentPrompt.trim()
        ? { ...instruction, agentPrompt: r.agentPrompt.slice(0, 50_000) }
        : { ...instruction, agentPrompt: '(blank)' };
      events.push(pending('InstructionIssued', { instruction: recorded, accepted: false, reason }));
      notes.push(`Delegation to ${r.agentType} refused: ${reason}. Continue without it.`);
    };
    if (!AgentType.safeParse(r.agentType).success)
      refuse('the agent type must be a name a context id can carry (letters, digits, . _ : -; at most 128 characters)');
    else if (r.agentPrompt.trim() === '' || r.agentPrompt.length > 50_000) refuse('the specialist prompt must be 1 to 50,000 characters');
    else if (stack.length >= limits.maxDelegationDepth)
      refuse(`delegation depth limit ${limits.maxDelegationDepth} reached (${chain.join(' → ')})`);
    else if (chain.includes(r.agentType)) refuse(`delegation loop ${[...chain, r.agentType].join(' → ')}`);
    else {
      stack.push({ agentType: r.agentType, agentPrompt: r.agentPrompt, markIntermediate: true });
      events.push(pending('InstructionIssued', { instruction, accepted: true }));
      notes.push(
        `Control is now with the specialist ${r.agentType} (${r.agentPrompt.length} chars of instructions in the system prompt). Work as that specialist; end with <return-control>your result</return-control>.`,
      );
    }
  }
  return { events, notes };
}
