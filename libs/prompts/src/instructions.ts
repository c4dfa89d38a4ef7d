import { Instruction, StagecraftError } from '@stagecraft/contracts';

/** Seed 000 `toXmlLine`: a delegation shows only its size, so a long specialist prompt does not bloat every request. */
export function instructionXmlLine(instruction: Instruction): string {
  switch (instruction.kind) {
    case 'DelegateReasoning':
      return `<delegate-reasoning>Specialist active (${instruction.agentPrompt.length} chars)</delegate-reasoning>`;
    case 'ReturnControl':
      return '<return-control>Returning to main agent</return-control>';
    case 'IntermediateReasoning':
      return '<intermediate>Internal reasoning</intermediate>';
    default: {
      const unreachable: never = instruction;
      throw new StagecraftError('VALIDATION', `unknown instruction ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Seed 000 `serializeContent`: lengths and slices count UTF-16 code units, as Kotlin's `length` and `take` do. */
export function serializeInstructionContent(instruction: Instruction): string {
  switch (instruction.kind) {
    case 'DelegateReasoning':
      return `delegate_reasoning:${instruction.agentPrompt.length}:${instruction.agentPrompt.slice(0, 200)}`;
    case 'ReturnControl':
      return 'return_control';
    case 'IntermediateReasoning':
      return 'intermediate';
    default: {
      const unreachable: never = instruction;
      throw new StagecraftError('VALIDATION', `unknown instruction ${JSON.stringify(unreachable)}`);
    }
  }
}
