import type { PromptAssembleReply, PromptAssembleRequest } from '@stagecraft/contracts';
import { assemblePrompt } from '@stagecraft/prompts';
import type { PromptAssembly } from '../dependencies';

/** `prompt.assemble`: the system prompt of one stage, from the templates and the contributors' sections. */
export const assemble = (request: PromptAssembleRequest, { repository, contributors }: PromptAssembly): PromptAssembleReply =>
  assemblePrompt(repository, request, contributors);
