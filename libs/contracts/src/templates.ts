import { z } from 'zod';
import { NonBlank } from './common';
import { ContextIdString } from './context';

/** The version written by this code; readers accept any 1.x.y, so adding optional fields is a minor bump. */
export const TEMPLATE_SCHEMA_VERSION = '1.0.0';
const SchemaVersion = z
  .string()
  .regex(/^1\.\d+\.\d+$/, 'this contract reads template versions 1.x.y')
  .describe('semantic version of the template; lets a dataset be filtered by the shape its records have');

/** Bounds on what agents write, exported so that prompts, schemas and checks all state the same numbers. */
export const TEMPLATE_LIMITS = {
  /** Seed 000: a specialist's brief. */
  agentPromptChars: 50_000,
  assignedGoalChars: 8_000,
  assignmentsPerDelegation: 16,
  ticketsPerPlan: 32,
  recommendationsPerResult: 32,
  textChars: 20_000,
} as const;

const Metadata = z.record(z.string(), z.string()).default({}).describe('free-form labels for training and analysis');
const Score = z.number().min(0).max(1);

/** Seed 001 §6: what an orchestrator hands to each agent, and why. */
export const AgentAssignment = z.object({
  agentId: NonBlank,
  agentType: NonBlank,
  assignedGoal: NonBlank.max(TEMPLATE_LIMITS.assignedGoalChars),
  subdomainFocus: NonBlank.optional(),
  contextToPass: z.record(z.string(), z.string()).default({}),
});
export type AgentAssignment = z.infer<typeof AgentAssignment>;

export const ContextSelection = z.object({
  selectionId: NonBlank,
  sourceContextId: ContextIdString,
  selectedContent: NonBlank,
  selectionRationale: NonBlank.describe('why the orchestrator passed this on'),
});
export type ContextSelection = z.infer<typeof ContextSelection>;

export const DelegationTemplate = z.object({
  schemaVersion: SchemaVersion,
  resultId: ContextIdString,
  upstreamContextId: ContextIdString,
  goal: NonBlank,
  delegationRationale: NonBlank.describe('why the work was split this way'),
  assignments: z.array(AgentAssignment).min(1).max(TEMPLATE_LIMITS.assignmentsPerDelegation),
  contextSelections: z.array(ContextSelection).default([]),
  metadata: Metadata,
});
export type DelegationTemplate = z.infer<typeof DelegationTemplate>;

/** Seed 001 §7: how a collector merged its inputs and what it decided. */
export const InputReference = z.object({ inputContextId: ContextIdString, inputType: NonBlank, inputSummary: NonBlank });
export type InputReference = z.infer<typeof InputReference>;

export const ConflictResolution = z.object({
  conflictDescription: NonBlank,
  resolutionApproach: NonBlank,
  conflictingInputs: z.array(ContextIdString).min(1),
  /** A ticket collector resolving a merge conflict: the file (as the conflict names it) and its resolved content (docs/decisions/0036). */
  path: NonBlank.optional(),
  resolvedContent: z.string().max(200_000).optional(),
});
export type ConflictResolution = z.infer<typeof ConflictResolution>;

/**
 * What a collector decides for its phase: go on to the next phase, run some of its agents again with
 * their previous attempt, go back to an earlier phase, or stop the workflow.
 */
export const CollectorDecisionType = z.enum(['ADVANCE', 'RERUN', 'ROUTE_BACK', 'STOP']);
export type CollectorDecisionType = z.infer<typeof CollectorDecisionType>;

export const CollectorDecision = z.object({
  decisionType: CollectorDecisionType,
  rationale: NonBlank,
  rerunAgentIds: z.array(NonBlank).default([]).describe('RERUN: the agents (by agentId) to run again with their previous attempt'),
  requestedPhase: NonBlank.optional().describe('ROUTE_BACK: the earlier phase to go back to (default: the phase before this one)'),
});
export type CollectorDecision = z.infer<typeof CollectorDecision>;

export const Curation = z.object({
  curationId: NonBlank,
  title: NonBlank,
  content: NonBlank,
  sourceContextIds: z.array(ContextIdString).min(1),
});
export type Curation = z.infer<typeof Curation>;

const consolidationFields = {
  schemaVersion: SchemaVersion,
  resultId: ContextIdString,
  inputs: z.array(InputReference).min(1),
  mergeStrategy: NonBlank,
  conflictResolutions: z.array(ConflictResolution).default([]),
  aggregatedMetrics: z.record(z.string(), z.number()).default({}),
  consolidatedOutput: NonBlank,
  decision: CollectorDecision,
  upstreamContextChain: z.array(ContextIdString).default([]),
  metadata: Metadata,
  curations: z.array(Curation).default([]).describe('curated context derived for the agents downstream'),
};
export const ConsolidationTemplate = z.object(consolidationFields);
export type ConsolidationTemplate = z.infer<typeof ConsolidationTemplate>;

/** Seed 001 §8: findings with file references, links, tags, queries and diagrams, usable for retrieval training. */
export const FileReference = z
  .object({
    filePath: NonBlank,
    startLine: z.number().int().min(1),
    endLine: z.number().int().min(1),
    relevanceScore: Score,
    snippet: z.string(),
    tags: z.array(NonBlank).default([]),
  })
  .refine((ref) => ref.endLine >= ref.startLine, { message: 'endLine comes before startLine', path: ['endLine'] });
export type FileReference = z.infer<typeof FileReference>;

export const CrossLink = z.object({
  sourcePath: NonBlank,
  targetPath: NonBlank,
  relation: z.enum(['imports', 'calls', 'implements', 'extends', 'tests', 'configures', 'references']),
  description: NonBlank.optional(),
});
export type CrossLink = z.infer<typeof CrossLink>;

export const SemanticTag = z.object({ tag: NonBlank, description: NonBlank.optional(), filePaths: z.array(NonBlank).default([]) });
export type SemanticTag = z.infer<typeof SemanticTag>;

export const GeneratedQuery = z.object({
  queryText: NonBlank,
  expectedResultPaths: z.array(NonBlank).min(1),
  queryType: z.enum(['code_search', 'pattern_find', 'dependency_trace']),
});
export type GeneratedQuery = z.infer<typeof GeneratedQuery>;

export const DiagramRepresentation = z.object({
  title: NonBlank,
  notation: z.enum(['mermaid', 'plantuml', 'ascii']),
  source: NonBlank,
});
export type DiagramRepresentation = z.infer<typeof DiagramRepresentation>;

export const DiscoveryReport = z.object({
  schemaVersion: SchemaVersion,
  resultId: ContextIdString,
  upstreamContextId: ContextIdString,
  fileReferences: z.array(FileReference).default([]),
  crossLinks: z.array(CrossLink).default([]),
  semanticTags: z.array(SemanticTag).default([]),
  generatedQueries: z.array(GeneratedQuery).default([]),
  diagrams: z.array(DiagramRepresentation).default([]),
  architectureOverview: NonBlank,
  keyPatterns: z.array(NonBlank).default([]),
  integrationPoints: z.array(NonBlank).default([]),
  relevanceScores: z.record(z.string(), Score).default({}).describe('file path → relevance to the query, for retrieval training'),
});
export type DiscoveryReport = z.infer<typeof DiscoveryReport>;


const Text = NonBlank.max(TEMPLATE_LIMITS.textChars);
const Priority = z.enum(['critical', 'high', 'medium', 'low']);

/** Seed 001 §9: one actionable item for planning, traced to the discoveries behind it. */
export const Recommendation = z.object({
  recommendationId: NonBlank,
  title: NonBlank,
  description: Text,
  priority: Priority,
  supportingDiscoveryIds: z.array(ContextIdString).default([]),
  relatedFilePaths: z.array(NonBlank).default([]),
});
export type Recommendation = z.infer<typeof Recommendation>;

export const QueryFindings = z.object({
  originalQuery: NonBlank,
  results: z.array(FileReference).default([]),
  confidenceScore: Score,
  summary: Text,
});
export type QueryFindings = z.infer<typeof QueryFindings>;

/** The unified view of the code the discovery agents looked at. */
export const CodeMap = z.object({
  summary: Text,
  files: z.array(z.object({ path: NonBlank, role: NonBlank, tags: z.array(NonBlank).default([]) })).default([]),
  links: z.array(CrossLink).default([]),
});
export type CodeMap = z.infer<typeof CodeMap>;

/** What planning and tickets get from discovery (seed 001's DiscoveryCollectorContext). */
export const DiscoveryCuration = z.object({
  summary: Text,
  keyFiles: z.array(NonBlank).default([]),
  constraints: z.array(NonBlank).default([]),
});
export type DiscoveryCuration = z.infer<typeof DiscoveryCuration>;

/** Seed 001 §9: the discovery collector's consolidation, with its code map, recommendations and findings per query. */
export const DiscoveryCollectorResult = z.object({
  ...consolidationFields,
  unifiedCodeMap: CodeMap,
  recommendations: z.array(Recommendation).max(TEMPLATE_LIMITS.recommendationsPerResult).default([]),
  querySpecificFindings: z.record(z.string(), QueryFindings).default({}),
  discoveryCuration: DiscoveryCuration,
});
export type DiscoveryCollectorResult = z.infer<typeof DiscoveryCollectorResult>;

/** One change to make, small enough for one ticket agent. */
export const PlanningTicket = z.object({
  ticketId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" or "-" (max 64)'),
  title: NonBlank.max(200),
  description: Text,
  acceptanceCriteria: z.array(NonBlank).min(1),
  files: z.array(NonBlank).default([]).describe('the files the ticket expects to change or create'),
  dependsOn: z.array(NonBlank).default([]).describe('ticketIds that must be done first'),
  priority: Priority.default('medium'),
});
export type PlanningTicket = z.infer<typeof PlanningTicket>;

/** A planning agent's answer: the tickets for its part of the work. */
export const PlanningAgentResult = z.object({
  schemaVersion: SchemaVersion,
  resultId: ContextIdString,
  upstreamContextId: ContextIdString,
  summary: Text,
  tickets: z.array(PlanningTicket).min(1).max(TEMPLATE_LIMITS.ticketsPerPlan),
});
export type PlanningAgentResult = z.infer<typeof PlanningAgentResult>;

/** What ticket agents get from planning (seed 001's PlanningCollectorContext). */
export const PlanningCuration = z.object({ summary: Text, order: z.array(NonBlank).default([]).describe('ticketIds in the order to do them') });
export type PlanningCuration = z.infer<typeof PlanningCuration>;

/** The planning collector's consolidation: the tickets to implement, deduplicated and ordered. */
export const PlanningCollectorResult = z.object({
  ...consolidationFields,
  tickets: z.array(PlanningTicket).max(TEMPLATE_LIMITS.ticketsPerPlan).default([]),
  planningCuration: PlanningCuration,
});
export type PlanningCollectorResult = z.infer<typeof PlanningCollectorResult>;

/** A ticket agent's answer: what it changed for its ticket. */
export const TicketAgentResult = z.object({
  schemaVersion: SchemaVersion,
  resultId: ContextIdString,
  upstreamContextId: ContextIdString,
  ticketId: NonBlank,
  status: z.enum(['done', 'partial', 'blocked']),
  summary: Text,
  filesChanged: z.array(NonBlank).default([]),
});
export type TicketAgentResult = z.infer<typeof TicketAgentResult>;

/** The ticket collector's consolidation; a merge conflict between ticket agents is one of its conflictResolutions. */
export const TicketCollectorResult = z.object({
  ...consolidationFields,
  ticketOutcomes: z.array(z.object({ ticketId: NonBlank, status: z.enum(['done', 'partial', 'blocked']) })).default([]),
});
export type TicketCollectorResult = z.infer<typeof TicketCollectorResult>;
