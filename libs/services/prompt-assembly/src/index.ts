/** The prompt-assembly service: system prompts and step-workflow guidance, as a handler table. */
import { defineService } from '@stagecraft/service-shell';
import { assemble } from './assemble/assemble.handler';
import { PromptAssembly, loadPromptAssembly } from './dependencies';
import { nextStep } from './next-step/next-step.handler';

export const promptAssemblyService = defineService<PromptAssembly>({
  name: 'prompt-assembly',
  usesStore: false,
  start: (ports) => {
    const assembly = loadPromptAssembly(ports.env);
    // A bad workflow file stops only its own workflow; the operator hears of it here, a user when naming it.
    for (const { file, problem } of assembly.workflows.skipped()) ports.logger.warn({ file, problem }, 'workflow file skipped');
    return assembly;
  },
  handlers: { 'prompt.assemble': assemble, 'workflow.next': nextStep },
});

export { DEFAULT_PROMPTS_DIR, DEFAULT_WORKFLOWS_DIR } from './dependencies';
export { serviceContributors } from './contributors';
