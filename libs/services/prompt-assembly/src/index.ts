/** The prompt-assembly service: system prompts and step-workflow guidance, as a handler table. */
import { defineService } from '@stagecraft/service-shell';
import { assemble } from './assemble/assemble.handler';
import { PromptAssembly, loadPromptAssembly } from './dependencies';
import { nextStep } from './next-step/next-step.handler';

export const promptAssemblyService = defineService<PromptAssembly>({
  name: 'prompt-assembly',
  usesStore: false,
  start: (ports) => loadPromptAssembly(ports.env),
  handlers: { 'prompt.assemble': assemble, 'workflow.next': nextStep },
});

export { DEFAULT_PROMPTS_DIR, DEFAULT_WORKFLOWS_DIR } from './dependencies';
export { serviceContributors } from './contributors';
