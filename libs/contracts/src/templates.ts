import { z } from 'zod';
import { NonBlank } from './common';
import { ContextIdString } from './context';

/** The version written by this code; readers accept any 1.x.y, so adding optional fields is a minor bump. */
export const TEMPLATE_SCHEMA_VERSION = '1.0.0';
const SchemaVersion = z
  .string()
  .regex(/^1\.\d+\.\d+$/, 'this contract reads template versions 1.x.y')
  .describe('semantic version of the template; lets a dataset be filtered by the shape its records have');

const Metadata = z.record(z.string(), z.string()).default({}).describe('free-form labels for training and analysis');
const Score = z.number().min(0).max(1);

/** Seed 001 §6: what an orchestrator hands to each agent, and why. */
export const AgentAssignment = z.object({
  agentId: NonBlank,
  agentType: NonBlank,
  assignedGoal: NonBlank,
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
  assignments: z.array(AgentAssignment).min(1),
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
});
export type ConflictResolution = z.infer<typeof ConflictResolution>;

export const CollectorDecision = z.object({
  decisionType: z.enum(['ADVANCE_PHASE', 'ROUTE_BACK', 'STOP']),
  rationale: NonBlank,
  requestedPhase: NonBlank.optional().describe('the phase to route back to or advance into, when it is not the obvious next one'),
});
export type CollectorDecision = z.infer<typeof CollectorDecision>;

export const Curation = z.object({
  curationId: NonBlank,
  title: NonBlank,
  content: NonBlank,
  sourceContextIds: z.array(ContextIdString).min(1),
});
export type Curation = z.infer<typeof Curation>;

export const ConsolidationTemplate = z.object({
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
});
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
