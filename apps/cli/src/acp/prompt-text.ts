import type { ContentBlock } from '@agentclientprotocol/sdk';
import { StagecraftError } from '@stagecraft/contracts';

const MAX_MESSAGE = 200_000;

/**
 * The user's message from a prompt's blocks: text as it is, a resource link as its name and URI, an
 * embedded text resource as a fenced block under its URI. Images, audio and binary resources are not
 * advertised, and refused.
 */
export function promptMessage(blocks: readonly ContentBlock[]): string {
  const parts = blocks.map((block, index) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'resource_link':
        return `[${block.name}](${block.uri})`;
      case 'resource':
        if ('text' in block.resource) return `${block.resource.uri}:\n\`\`\`\n${block.resource.text}\n\`\`\``;
        throw refused(index, 'binary resources are not supported');
      default:
        throw refused(index, `${block.type} content is not supported`);
    }
  });
  const message = parts.join('\n\n').trim();
  if (message === '') throw refused(0, 'the prompt has no text');
  if (message.length > MAX_MESSAGE) throw refused(0, `the prompt is longer than ${MAX_MESSAGE} characters`);
  return message;
}

const refused = (index: number, message: string) =>
  new StagecraftError('VALIDATION', `invalid prompt: ${message}`, [{ path: ['prompt', index], message }]);
