import {
  DelegationTemplate,
  DiscoveryCollectorResult,
  DiscoveryReport,
  PlanningAgentResult,
  PlanningCollectorResult,
  STEP_AGENT_TYPE,
  TEMPLATE_SCHEMA_VERSION,
  TicketAgentResult,
  TicketCollectorResult,
} from '@stagecraft/contracts';
import { z } from 'zod';

/** The document each agent type answers with; steps of a seed-004 workflow answer in prose. */
export const DOCUMENT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  'discovery-orchestrator': DelegationTemplate,
  'planning-orchestrator': DelegationTemplate,
  'ticket-orchestrator': DelegationTemplate,
  'discovery-agent': DiscoveryReport,
  'planning-agent': PlanningAgentResult,
  'ticket-agent': TicketAgentResult,
  'discovery-collector': DiscoveryCollectorResult,
  'planning-collector': PlanningCollectorResult,
  'ticket-collector': TicketCollectorResult,
};

export type ParsedDocument = { ok: true; document: unknown } | { ok: false; message: string; issues: string[] };

/** The JSON of an answer: its last ```json block, else the span from its first `{` to its last `}`. */
export function extractJson(answer: string): string | null {
  const blocks = [...answer.matchAll(/```(?:json)?[ \t]*\n([\s\S]*?)```/g)].map((m) => m[1].trim()).filter((b) => b.startsWith('{'));
  if (blocks.length > 0) return blocks[blocks.length - 1];
  const first = answer.indexOf('{');
  const last = answer.lastIndexOf('}');
  return first >= 0 && last > first ? answer.slice(first, last + 1) : null;
}

export interface DocumentIds {
  /** The agent's own context id: the document's `resultId`. */
  resultId: string;
  /** The context the agent worked from. */
  upstreamContextId: string;
  /** A collector's consolidation: the contexts it builds on, root first. */
  upstreamContextChain?: readonly string[];
}

/**
 * An agent's answer read as its type's document. The workflow owns the ids: `resultId`,
 * `upstreamContextId` and (when left out) `schemaVersion` are set before the check.
 */
export function parseAgentDocument(agentType: string, answer: string, ids: DocumentIds): ParsedDocument {
  const schema = DOCUMENT_SCHEMAS[agentType];
  if (schema === undefined || agentType === STEP_AGENT_TYPE) return { ok: true, document: undefined };
  const json = extractJson(answer);
  if (json === null) return { ok: false, message: 'the answer holds no JSON document', issues: ['answer with one ```json block'] };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, message: 'the JSON document does not parse', issues: [(error as Error).message] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, message: 'the JSON document is not an object', issues: [] };
  const filled = {
    schemaVersion: TEMPLATE_SCHEMA_VERSION,
    ...value,
    resultId: ids.resultId,
    upstreamContextId: ids.upstreamContextId,
    ...(ids.upstreamContextChain ? { upstreamContextChain: [...ids.upstreamContextChain] } : {}),
  };
  const checked = schema.safeParse(filled);
  if (checked.success) return { ok: true, document: checked.data };
  const issues = checked.error.issues.slice(0, 20).map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`);
  return { ok: false, message: `the answer is not a valid ${schemaName(agentType)}`, issues };
}

const schemaName = (agentType: string): string =>
  ({
    'discovery-orchestrator': 'DelegationTemplate',
    'planning-orchestrator': 'DelegationTemplate',
    'ticket-orchestrator': 'DelegationTemplate',
    'discovery-agent': 'DiscoveryReport',
    'planning-agent': 'PlanningAgentResult',
    'ticket-agent': 'TicketAgentResult',
    'discovery-collector': 'DiscoveryCollectorResult',
    'planning-collector': 'PlanningCollectorResult',
    'ticket-collector': 'TicketCollectorResult',
  })[agentType] ?? agentType;
