import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEMPLATE_LIMITS } from './templates';

const dir = join(__dirname, '..', '..', '..', 'contracts');
const committed = (path: string): unknown => JSON.parse(readFileSync(join(dir, path), 'utf8'));

/** The value at a `/`-separated path of keys, or undefined. */
function at(document: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .filter((key) => key !== '')
    .reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), document);
}

/** Where each limit must be stated, so a model or a person reading only the JSON Schema sees the same number. */
const STATED: Record<keyof typeof TEMPLATE_LIMITS, Array<[file: string, pointer: string]>> = {
  agentPromptChars: [
    ['events/InstructionIssued.schema.json', 'properties/instruction/oneOf/0/properties/agentPrompt/maxLength'],
    ['subjects/prompt.assemble.request.schema.json', 'properties/instructions/items/oneOf/0/properties/agentPrompt/maxLength'],
  ],
  assignedGoalChars: [['templates/DelegationTemplate.schema.json', 'properties/assignments/items/properties/assignedGoal/maxLength']],
  assignmentsPerDelegation: [['templates/DelegationTemplate.schema.json', 'properties/assignments/maxItems']],
  ticketsPerPlan: [
    ['templates/PlanningAgentResult.schema.json', 'properties/tickets/maxItems'],
    ['templates/PlanningCollectorResult.schema.json', 'properties/tickets/maxItems'],
  ],
  recommendationsPerResult: [['templates/DiscoveryCollectorResult.schema.json', 'properties/recommendations/maxItems']],
  textChars: [
    ['templates/PlanningTicket.schema.json', 'properties/description/maxLength'],
    ['templates/PlanningAgentResult.schema.json', 'properties/summary/maxLength'],
    ['templates/TicketAgentResult.schema.json', 'properties/summary/maxLength'],
    ['templates/DiscoveryCollectorResult.schema.json', 'properties/discoveryCuration/properties/summary/maxLength'],
    ['templates/PlanningCollectorResult.schema.json', 'properties/planningCuration/properties/summary/maxLength'],
  ],
};

describe('the committed JSON Schemas state every template limit', () => {
  it.each(Object.entries(STATED))('%s', (limit, places) => {
    const expected = TEMPLATE_LIMITS[limit as keyof typeof TEMPLATE_LIMITS];
    expect(places.map(([file, pointer]) => ({ file, pointer, value: at(committed(file), pointer) }))).toEqual(
      places.map(([file, pointer]) => ({ file, pointer, value: expected })),
    );
  });
});
