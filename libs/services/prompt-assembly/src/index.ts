import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { loadPromptDirectory } from '@stagecraft/prompts';
import { SHELL_CONFIG, ServiceDefinition } from '@stagecraft/service-shell';
import type { ShellPorts } from '@stagecraft/service-shell';
import { loadWorkflowDirectory } from '@stagecraft/workflows';
import { serviceContributors } from './contributors';
import { PromptController } from './prompt.controller';
import { CONTRIBUTORS, PROMPT_REPOSITORY, WORKFLOWS } from './tokens';
import { WorkflowController } from './workflow.controller';

/** The prompts shipped with the repository; `STAGECRAFT_PROMPTS_DIR` points elsewhere. */
export const DEFAULT_PROMPTS_DIR = join(__dirname, '..', '..', '..', '..', 'prompts');
/** The workflows shipped with the repository; `STAGECRAFT_WORKFLOWS_DIR` points elsewhere. */
export const DEFAULT_WORKFLOWS_DIR = join(__dirname, '..', '..', '..', '..', 'workflows');

@Module({
  controllers: [PromptController, WorkflowController],
  providers: [
    // Loaded and checked once at start-up: an unknown {{variable}} or a bad workflow file stops the service here, not mid-run.
    {
      provide: PROMPT_REPOSITORY,
      inject: [SHELL_CONFIG],
      useFactory: (shell: ShellPorts) => loadPromptDirectory(shell.env['STAGECRAFT_PROMPTS_DIR'] || DEFAULT_PROMPTS_DIR),
    },
    {
      provide: WORKFLOWS,
      inject: [SHELL_CONFIG],
      useFactory: (shell: ShellPorts) => loadWorkflowDirectory(shell.env['STAGECRAFT_WORKFLOWS_DIR'] || DEFAULT_WORKFLOWS_DIR),
    },
    { provide: CONTRIBUTORS, inject: [PROMPT_REPOSITORY], useFactory: serviceContributors },
  ],
})
export class PromptAssemblyModule {}

export const promptAssemblyService: ServiceDefinition = { name: 'prompt-assembly', module: PromptAssemblyModule, usesStore: false };
export { serviceContributors } from './contributors';
