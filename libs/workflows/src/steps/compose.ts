import { WorkflowStep } from '@stagecraft/contracts';

/**
 * Seed 004, byte for byte: `## Agent Role` block, `## Step Guidance` list, then the prompt. Without an
 * agentRole the text is exactly what it was before the field existed. This text is for the model only.
 */
export function composeStepPrompt(step: WorkflowStep): string {
  const systemInstructions = step.agentRole ? `## Agent Role\n${step.agentRole}\n\n` : '';
  const stepGuidance =
    step.guidance && step.guidance.length > 0 ? `## Step Guidance\n${step.guidance.map((g) => `- ${g}`).join('\n')}\n\n` : '';
  return `${systemInstructions}${stepGuidance}${step.prompt}`;
}
