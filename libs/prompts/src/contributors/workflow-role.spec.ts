import { join } from 'node:path';
import {
  DelegationTemplate,
  DiscoveryCollectorResult,
  DiscoveryReport,
  PHASES,
  PlanningAgentResult,
  PlanningCollectorResult,
  PlanningTicket,
  PromptAssembleRequest,
  TEMPLATE_LIMITS,
  TEMPLATE_SCHEMA_VERSION,
  TicketAgentResult,
  TicketCollectorResult,
  WORKFLOW_AGENT_TYPES,
  phaseAgentType,
} from '@stagecraft/contracts';
import { z } from 'zod';
import { decideStagePolicy } from '@stagecraft/policy';
import { assemblePrompt } from '../assemble';
import { loadPromptDirectory } from '../load-prompts';
import { findPromptViolations } from '../prompt-guard';
import { createContributorRegistry } from './registry';
import { workflowRoleContributor, workflowRolePromptId } from './workflow-role';

const repo = loadPromptDirectory(join(__dirname, '..', '..', '..', '..', 'prompts'));
const policy = (stage: 'act' | 'qa_review' = 'act') =>
  decideStagePolicy({ userMode: 'agent', reasoningEnabled: true, stage, delegation: { depth: 0, chain: [] } });
const contributor = workflowRoleContributor(repo);
const request = (agentType: string, stage: 'act' | 'qa_review' = 'act'): PromptAssembleRequest =>
  PromptAssembleRequest.parse({ policy: policy(stage), variables: { project_root: '/repo', user_input: 'go', tool_summary: 'none', last_step_outcome: 'none' }, agentType });

const PHASE_AGENT_TYPES = PHASES.flatMap((phase) => (['orchestrator', 'agent', 'collector'] as const).map((role) => phaseAgentType(phase, role)));
const body = (agentType: string) => repo.get(workflowRolePromptId(agentType)).body;

/** The document each agent type answers with. */
const SCHEMAS: Record<string, z.ZodType> = {
  'discovery-orchestrator': DelegationTemplate,
  'discovery-agent': DiscoveryReport,
  'discovery-collector': DiscoveryCollectorResult,
  'planning-orchestrator': DelegationTemplate,
  'planning-agent': PlanningAgentResult,
  'planning-collector': PlanningCollectorResult,
  'ticket-orchestrator': DelegationTemplate,
  'ticket-agent': TicketAgentResult,
  'ticket-collector': TicketCollectorResult,
};

const ticketJsonSchema = z.toJSONSchema(PlanningTicket, { io: 'input' }) as { properties: Record<string, { maxLength?: number }> };
/** The field a role prompt names just before "at most N", and the limit it must state. */
const LIMIT_OF_FIELD: Record<string, number | undefined> = {
  assignments: TEMPLATE_LIMITS.assignmentsPerDelegation,
  assignedGoal: TEMPLATE_LIMITS.assignedGoalChars,
  tickets: TEMPLATE_LIMITS.ticketsPerPlan,
  recommendations: TEMPLATE_LIMITS.recommendationsPerResult,
  summary: TEMPLATE_LIMITS.textChars,
  description: TEMPLATE_LIMITS.textChars,
  title: ticketJsonSchema.properties['title'].maxLength,
  ticketId: 64,
};

/** Every "at most N" of a prompt, with the last `field` named before it on its line. */
function statedLimits(text: string): Array<{ field: string; value: number }> {
  return text.split('\n').flatMap((line) =>
    [...line.matchAll(/at most ([\d,]+)/g)].map((m) => {
      const before = [...line.slice(0, m.index).matchAll(/`(\w+)`/g)].pop();
      return { field: before?.[1] ?? '(no field)', value: Number(m[1].replace(/,/g, '')) };
    }),
  );
}

const ids = { schemaVersion: TEMPLATE_SCHEMA_VERSION, resultId: 'wf-1/x/001/2026-01-19T10:30:00Z', upstreamContextId: 'wf-1/y/001/2026-01-19T10:30:00Z' };

describe('workflow role prompts', () => {
  it('exist for the nine phase agent types and no other', () => {
    expect(PHASE_AGENT_TYPES).toHaveLength(9);
    expect(PHASE_AGENT_TYPES.every((t) => WORKFLOW_AGENT_TYPES.includes(t))).toBe(true);
    expect(PHASE_AGENT_TYPES.filter((t) => !repo.has(workflowRolePromptId(t)))).toEqual([]);
    expect(repo.ids().filter((id) => id.startsWith('workflow/'))).toEqual(PHASE_AGENT_TYPES.map(workflowRolePromptId).sort());
  });

  it.each(PHASE_AGENT_TYPES)('%s: says who the agent is on its first line', (agentType) => {
    const words = agentType.replace(/-/g, ' ');
    expect(body(agentType).split('\n')[0]).toBe(`You are the ${words} of a Stagecraft workflow (agent type \`${agentType}\`).`);
  });

  it.each(PHASE_AGENT_TYPES)('%s: states only the limits TEMPLATE_LIMITS sets', (agentType) => {
    const stated = statedLimits(body(agentType));
    expect(stated.map(({ field, value }) => ({ field, value }))).toEqual(stated.map(({ field }) => ({ field, value: LIMIT_OF_FIELD[field] })));
  });

  it('state each limit somewhere', () => {
    const fields = new Set(PHASE_AGENT_TYPES.flatMap((t) => statedLimits(body(t)).map((s) => s.field)));
    expect([...fields].sort()).toEqual(Object.keys(LIMIT_OF_FIELD).sort());
  });

  it.each(PHASE_AGENT_TYPES)('%s: gives an example its schema accepts once the workflow fills the ids, and lets the model leave them out', (agentType) => {
    const text = body(agentType);
    const example = /```json\n([\s\S]*?)\n```/.exec(text)?.[1];
    expect(example).toBeDefined();
    const result = SCHEMAS[agentType].safeParse({ ...JSON.parse(example ?? '{}'), ...ids });
    expect(result.error?.issues ?? []).toEqual([]);
    expect(text).toContain('Leave out `schemaVersion`, `resultId` and `upstreamContextId`');
    expect(findPromptViolations(text)).toEqual([]);
  });

  it('gives each collector its four decisions', () => {
    for (const agentType of PHASE_AGENT_TYPES.filter((t) => t.endsWith('-collector'))) {
      for (const option of ['`ADVANCE`', '`RERUN`', '`rerunAgentIds`', '`ROUTE_BACK`', '`requestedPhase`', '`STOP`']) expect(body(agentType)).toContain(option);
    }
  });

  it('has ticket agents write their change before answering, and the ticket collector record each merge conflict', () => {
    expect(body('ticket-agent')).toContain('Make the change there with the write tools (`write_file`, `apply_patch`) before you answer');
    expect(body('ticket-collector')).toContain('resolve it in the project root with the write tools');
    expect(body('ticket-collector')).toContain('Record exactly one conflict resolution for each file under "Merge conflicts".');
  });
});

describe('workflow role contributor', () => {
  it('adds the role of a workflow agent type, and nothing for other agent types', () => {
    expect(contributor.contribute(request('planning-agent'))).toBe(body('planning-agent'));
    expect(contributor.contribute(request('main'))).toBeNull();
    expect(contributor.contribute(request(WORKFLOW_AGENT_TYPES[WORKFLOW_AGENT_TYPES.length - 1]))).toBeNull();
  });

  it('comes first among the sections, and not for the quality reviewer', () => {
    const registry = createContributorRegistry([contributor]);
    const act = assemblePrompt(repo, request('ticket-agent'), registry);
    expect(act.promptIds).toContain('contributor:workflow-role');
    expect(act.system).toContain('(agent type `ticket-agent`)');
    const qa = assemblePrompt(repo, request('ticket-agent', 'qa_review'), registry);
    expect(qa.promptIds).not.toContain('contributor:workflow-role');
    expect(contributor).toMatchObject({ name: 'workflow-role', priority: 10 });
  });
});
