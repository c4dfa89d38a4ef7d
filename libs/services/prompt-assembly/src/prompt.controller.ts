import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { PromptAssembleReply, PromptAssembleRequest } from '@stagecraft/contracts';
import { assemblePrompt } from '@stagecraft/prompts';
import type { ContributorRegistry, PromptRepository } from '@stagecraft/prompts';
import { Handles } from '@stagecraft/service-shell';
import { CONTRIBUTORS, PROMPT_REPOSITORY } from './tokens';

@Controller()
export class PromptController {
  constructor(
    @Inject(PROMPT_REPOSITORY) private readonly repository: PromptRepository,
    @Inject(CONTRIBUTORS) private readonly contributors: ContributorRegistry,
  ) {}

  @Handles('prompt.assemble')
  assemble(@Payload() request: PromptAssembleRequest): PromptAssembleReply {
    return assemblePrompt(this.repository, request, this.contributors);
  }
}
