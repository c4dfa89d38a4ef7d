/**
 * How a model asks for delegation: XML-style tags in its reply, the same shape the system prompt
 * uses to show active instructions (seed 000).
 *   <delegate-reasoning agent="reviewer">full prompt for the specialist</delegate-reasoning>
 *   <return-control>what the specialist found</return-control>
 */
export type RequestedInstruction =
  { kind: 'DelegateReasoning'; agentType: string; agentPrompt: string } | { kind: 'ReturnControl'; result: string };

const DELEGATE = /<delegate-reasoning(?:\s+agent\s*=\s*"([^"]*)")?\s*>([\s\S]*?)<\/delegate-reasoning>/gi;
const RETURN = /<return-control>([\s\S]*?)<\/return-control>/gi;

export function findInstructionTags(text: string): { requested: RequestedInstruction[]; rest: string } {
  const requested: { at: number; instruction: RequestedInstruction }[] = [];
  for (const m of text.matchAll(DELEGATE)) {
    requested.push({
      at: m.index ?? 0,
      instruction: { kind: 'DelegateReasoning', agentType: (m[1] ?? '').trim() || 'specialist', agentPrompt: m[2].trim() },
    });
  }
  for (const m of text.matchAll(RETURN)) requested.push({ at: m.index ?? 0, instruction: { kind: 'ReturnControl', result: m[1].trim() } });
  const rest = text.replace(DELEGATE, '').replace(RETURN, '').trim();
  return { requested: requested.sort((a, b) => a.at - b.at).map((r) => r.instruction), rest };
}
