import { z } from 'zod';
import { EVENT_TYPES, StagecraftEvent, eventDataSchemas } from './events';
import { EventMetadata } from './metadata';
import { FEED_EVENT_TYPES, FeedEvent, FeedMetadata, feedV1EventSchemas } from './feed';
import { ErrorReply, ReplyEnvelope } from './errors';
import { REQUEST_SUBJECTS, publishContracts, requestContracts } from './subjects';
import { ContextIdString } from './context';
import { PromptContributorDescriptor } from './prompts';
import {
  ConsolidationTemplate,
  DelegationTemplate,
  DiscoveryCollectorResult,
  DiscoveryReport,
  PlanningAgentResult,
  PlanningCollectorResult,
  PlanningTicket,
  TicketAgentResult,
  TicketCollectorResult,
} from './templates';
import { PreviousAttempt, UpstreamContext } from './upstream';
import { WorkflowDefinition } from './workflows';
import { apiV1OpenApi } from './api/openapi';
import { STAGECRAFT_VERSION } from './subjects';

/**
 * Every committed JSON Schema, keyed by its file path under `contracts/`.
 * Pure: the generator script writes these, and a test compares them with the files.
 */
export function jsonSchemaFiles(): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  const put = (path: string, schema: z.ZodType, io: 'input' | 'output' = 'output') => {
    files[path] = { $id: `stagecraft/${path}`, ...z.toJSONSchema(schema, { io, unrepresentable: 'any' }) };
  };
  for (const type of EVENT_TYPES) put(`events/${type}.schema.json`, eventDataSchemas[type]);
  put('events/EventMetadata.schema.json', EventMetadata);
  put('events/StagecraftEvent.schema.json', StagecraftEvent);
  // The public feed: what clients read (docs/decisions/0046), one file per event, under its version.
  for (const type of FEED_EVENT_TYPES) put(`feed/v1/${type}.schema.json`, feedV1EventSchemas[type]);
  put('feed/v1/FeedMetadata.schema.json', FeedMetadata);
  put('feed/v1/FeedEvent.schema.json', FeedEvent);
  for (const subject of REQUEST_SUBJECTS) {
    const { request, reply } = requestContracts[subject];
    put(`subjects/${subject}.request.schema.json`, request, 'input');
    put(`subjects/${subject}.reply.schema.json`, ReplyEnvelope(reply));
  }
  for (const [name, { message }] of Object.entries(publishContracts)) put(`subjects/${name}.message.schema.json`, message);
  put('errors/ErrorReply.schema.json', ErrorReply);
  // Documents written by models and people: their input side, where defaulted fields may be left out.
  put('templates/DelegationTemplate.schema.json', DelegationTemplate, 'input');
  put('templates/ConsolidationTemplate.schema.json', ConsolidationTemplate, 'input');
  put('templates/DiscoveryReport.schema.json', DiscoveryReport, 'input');
  put('templates/DiscoveryCollectorResult.schema.json', DiscoveryCollectorResult, 'input');
  put('templates/PlanningTicket.schema.json', PlanningTicket, 'input');
  put('templates/PlanningAgentResult.schema.json', PlanningAgentResult, 'input');
  put('templates/PlanningCollectorResult.schema.json', PlanningCollectorResult, 'input');
  put('templates/TicketAgentResult.schema.json', TicketAgentResult, 'input');
  put('templates/TicketCollectorResult.schema.json', TicketCollectorResult, 'input');
  put('context/ContextId.schema.json', ContextIdString);
  put('context/UpstreamContext.schema.json', UpstreamContext, 'input');
  put('context/PreviousAttempt.schema.json', PreviousAttempt, 'input');
  put('workflows/WorkflowDefinition.schema.json', WorkflowDefinition, 'input');
  put('prompts/prompt-contributor.schema.json', PromptContributorDescriptor, 'input');
  // The console API's OpenAPI 3.1 document, built from its zod schemas (docs/decisions/0062).
  files['api/openapi.json'] = apiV1OpenApi(STAGECRAFT_VERSION);
  return files;
}

export const renderSchemaFile = (schema: unknown): string => `${JSON.stringify(schema, null, 2)}\n`;
