import { join } from 'node:path';
import { loadPromptDirectory } from '@stagecraft/prompts';
import type { ContributorRegistry, PromptRepository } from '@stagecraft/prompts';
import type { ShellPorts } from '@stagecraft/service-shell';
import { loadWorkflowDirectory } from '@stagecraft/workflows';
import type { WorkflowCatalog } from '@stagecraft/workflows';
import { serviceContributors } from './contributors';

/** The prompts shipped with the repository; `STAGECRAFT_PROMPTS_DIR` points elsewhere. */
export const DEFAULT_PROMPTS_DIR = join(__dirname, '..', '..', '..', '..', 'prompts');
/** The workflows shipped with the repository; `STAGECRAFT_WORKFLOWS_DIR` points elsewhere. */
export const DEFAULT_WORKFLOWS_DIR = join(__dirname, '..', '..', '..', '..', 'workflows');

export interface PromptAssembly {
  repository: PromptRepository;
  contributors: ContributorRegistry;
  workflows: WorkflowCatalog;
}

/** Loaded and checked once at start-up: an unknown {{variable}} or a bad workflow file stops the service here, not mid-run. */
export function loadPromptAssembly(env: ShellPorts['env']): PromptAssembly {
  const repository = loadPromptDirectory(env['STAGECRAFT_PROMPTS_DIR'] || DEFAULT_PROMPTS_DIR);
  const workflows = loadWorkflowDirectory(env['STAGECRAFT_WORKFLOWS_DIR'] || DEFAULT_WORKFLOWS_DIR);
  return { repository, contributors: serviceContributors(repository), workflows };
}
