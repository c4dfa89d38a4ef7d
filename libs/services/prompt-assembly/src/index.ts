import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { defaultContributors, loadPromptDirectory } from '@stagecraft/prompts';
import { ServiceDefinition } from '@stagecraft/service-shell';
import { PromptController } from './prompt.controller';
import { CONTRIBUTORS, PROMPT_REPOSITORY } from './tokens';

/** The prompts shipped with the repository; `STAGECRAFT_PROMPTS_DIR` points elsewhere. */
export const DEFAULT_PROMPTS_DIR = join(__dirname, '..', '..', '..', '..', 'prompts');

@Module({
  controllers: [PromptController],
  providers: [
    // Loaded and checked once at start-up: an unknown {{variable}} stops the service here, not mid-run.
    { provide: PROMPT_REPOSITORY, useFactory: () => loadPromptDirectory(process.env['STAGECRAFT_PROMPTS_DIR'] || DEFAULT_PROMPTS_DIR) },
    { provide: CONTRIBUTORS, useFactory: defaultContributors },
  ],
})
export class PromptAssemblyModule {}

export const promptAssemblyService: ServiceDefinition = { name: 'prompt-assembly', module: PromptAssemblyModule, usesStore: false };
