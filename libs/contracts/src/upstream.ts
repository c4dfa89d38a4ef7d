import { z } from 'zod';
import { NonBlank } from './common';
import { ContextIdString, ContextTimestamp } from './context';
import { ConflictDetail } from './merge-conflicts';
import {
  ConsolidationTemplate,
  DelegationTemplate,
  DiscoveryCollectorResult,
  DiscoveryReport,
  PlanningAgentResult,
  PlanningCollectorResult,
  PlanningTicket,
  TicketAgentResult,
} from './templates';

/**
 * Seed 001 §2: what an agent receives from the agents before it, each entry typed by what produced it
 * (an orchestrator's delegation, a collector's consolidation, a discovery report, a specialist's result),
 * never an untyped map.
 */
export const UpstreamContext = z.discriminatedUnion('kind', [
  /** The workflow's goal, as the first orchestrator receives it (seed 001's OrchestratorContext). */
  z.object({ kind: z.literal('goal'), workflowRunId: NonBlank, goal: NonBlank }),
  z.object({
    kind: z.literal('delegation'),
    template: DelegationTemplate,
    /** The reader's own place among the assignments: only that one is labelled as its own (siblings share an agent type). */
    assignmentIndex: z.number().int().min(0).optional(),
  }),
  z.object({ kind: z.literal('discovery-collector'), result: DiscoveryCollectorResult }),
  z.object({ kind: z.literal('planning'), result: PlanningAgentResult }),
  z.object({ kind: z.literal('planning-collector'), result: PlanningCollectorResult }),
  z.object({ kind: z.literal('ticket'), ticket: PlanningTicket }),
  z.object({ kind: z.literal('ticket-result'), result: TicketAgentResult }),
  /** Files a ticket changed that the user (or another ticket) changed too: left as the user has them, for the ticket collector. */
  z.object({
    kind: z.literal('merge-conflicts'),
    conflicts: z
      .array(z.object({ path: NonBlank, agentIds: z.array(NonBlank).min(1), contextIds: z.array(ContextIdString).min(1), ...ConflictDetail }))
      .min(1),
  }),
  z.object({ kind: z.literal('consolidation'), template: ConsolidationTemplate }),
  z.object({ kind: z.literal('discovery'), report: DiscoveryReport }),
  z.object({ kind: z.literal('result'), resultId: ContextIdString, agentType: NonBlank, output: NonBlank }),
]);
export type UpstreamContext = z.infer<typeof UpstreamContext>;
export type UpstreamKind = UpstreamContext['kind'];

/** Seed 001 §3: absent on a first run; on a rerun, what the previous attempt produced and how it failed. */
export const PreviousAttempt = z.object({
  previousContextId: ContextIdString,
  attemptNumber: z.number().int().min(1).describe('the number of the attempt being repeated; this run is attemptNumber + 1'),
  previousAttemptAt: ContextTimestamp,
  serializedOutput: z.string().max(200_000).describe('what the previous attempt produced; empty when it produced nothing'),
  error: z
    .object({ message: NonBlank, stackTrace: z.string().optional() })
    .optional()
    .describe('absent when the previous attempt finished but its result was rejected or rerouted'),
  priorContexts: z.array(UpstreamContext).default([]).describe('contexts the previous attempt worked from, kept for reroutes'),
});
export type PreviousAttempt = z.infer<typeof PreviousAttempt>;
