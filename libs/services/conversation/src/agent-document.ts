import { z } from 'zod';
import { STEP_AGENT_TYPE } from '@stagecraft/contracts';
import type { AgentBrief, Stage } from '@stagecraft/contracts';
import type { ModelResponse, StructuredOutput } from '@stagecraft/model-gateway';
import { DOCUMENT_SCHEMAS } from '@stagecraft/workflows';

// The stages whose reply can be the run's answer: any of them may be the one that hands in the document.
const ANSWERING: readonly Stage[] = ['act', 'tool_followup'];

/**
 * The structured output a workflow agent's acting call asks for (0059): its document beside the prose of its
 * answer, and with reasoning on the macro block as a field of its own. None for other runs and stages.
 */
export function documentFormat(agent: AgentBrief | undefined, stage: Stage, reasoningEnabled: boolean): StructuredOutput | undefined {
  if (agent === undefined || agent.agentType === STEP_AGENT_TYPE || !ANSWERING.includes(stage)) return undefined;
  const document = DOCUMENT_SCHEMAS[agent.agentType];
  if (document === undefined) return undefined;
  const answer = z.string().describe('What you tell the user beside the document; may be empty.');
  const name = agent.agentType.replace(/[^A-Za-z0-9_-]/g, '_');
  return reasoningEnabled
    ? {
        name: `${name}_with_reasoning`,
        schema: z.object({ reasoning: z.string().describe('Your reasoning block in the macro format, tags included.'), answer, document }),
      }
    : { name, schema: z.object({ answer, document }) };
}

const Reply = z.object({ reasoning: z.string().optional(), answer: z.string(), document: z.record(z.string(), z.unknown()) });

/**
 * A structured reply as the text the run reads and records: the reasoning block, the answer, then the
 * document in a ```json fence (which the workflow reads as before). Any other reply is left as it came.
 */
export function documentReplyText(response: Pick<ModelResponse, 'content' | 'structured' | 'toolCalls'>): string {
  if (response.structured !== 'json_schema' || response.toolCalls.length > 0) return response.content;
  let value: unknown;
  try {
    value = JSON.parse(response.content);
  } catch {
    return response.content;
  }
  const parsed = Reply.safeParse(value);
  if (!parsed.success) return response.content;
  const { reasoning, answer, document } = parsed.data;
  const parts = [reasoning?.trim(), answer.trim(), `\`\`\`json\n${JSON.stringify(document, null, 2)}\n\`\`\``];
  return parts.filter((part) => part !== undefined && part !== '').join('\n\n');
}
