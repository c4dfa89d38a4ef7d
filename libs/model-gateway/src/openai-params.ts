import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, ToolSpec } from '@stagecraft/contracts';

export function toOpenAiMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      if (toolCalls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // Some endpoints reject an empty string next to tool calls; null is what OpenAI itself sends.
        content: message.content === '' ? null : message.content,
        tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      };
    }
    case 'tool':
      return { role: 'tool', content: message.content, tool_call_id: message.toolCallId ?? '' };
    default: {
      const unreachable: never = message.role;
      return unreachable;
    }
  }
}

export const toOpenAiTool = (spec: ToolSpec): ChatCompletionTool => ({
  type: 'function',
  function: { name: spec.name, description: spec.description, parameters: spec.parameters },
});
