import { PromptRepository } from '../repository';
import { PromptContributor } from './contributor';

/** Prompt ids are lower-case with underscores, agent types use hyphens: `ticket-agent` → `workflow/ticket_agent`. */
export const workflowRolePromptId = (agentType: string): string => `workflow/${agentType.toLowerCase().replace(/-/g, '_')}`;

/**
 * Seeds 001/003: a workflow agent learns who it is, what it receives and which document to answer with
 * from `prompts/workflow/<agent type>.md`. Other agent types have no such prompt and get nothing. The
 * reviewer of the quality stage is not the agent, so it does not get the role.
 */
export function workflowRoleContributor(repo: PromptRepository): PromptContributor {
  return {
    name: 'workflow-role',
    runWide: true,
    agentTypes: 'all',
    priority: 10,
    appliesTo: (policy) => policy.stage !== 'qa_review',
    contribute: ({ agentType, variables }) => {
      const id = workflowRolePromptId(agentType);
      return repo.has(id) ? repo.render(id, variables) : null;
    },
  };
}
