import { RecordedRequest, ScriptedReply } from '../script';
import { readConversation, reasoningRequested, ToolExchange } from '../demo/conversation';
import { microBlock, withReasoning } from '../demo/reasoning-text';
import { deliveryStep, qaStep, warmupStep } from '../demo/review-steps';
import { toolCall } from '../demo/tool-call';
import {
  Document,
  REQUIRED_FIELD,
  ScriptedDecision,
  delegation,
  discoveryCollectorResult,
  discoveryReport,
  ownTicket,
  planningCollectorResult,
  planningResult,
  resolvedContent,
  ticketCollectorResult,
  ticketContent,
  ticketResult,
} from './documents';
import { WorkflowRequest, mergeConflicts, readWorkflowRequest } from './read-workflow-request';

export interface WorkflowScriptOptions {
  /** Assignments an orchestrator of discovery or planning makes (default 2); the ticket orchestrator makes one per ticket. */
  agentsPerPhase?: number;
  /** ticketId → the file its ticket changes (default `WORKFLOW_<TICKETID>.md`), so two tickets can share a file. */
  ticketFile?: Readonly<Record<string, string>>;
  /** A collector's decision (default ADVANCE), from what its request shows. */
  decide?: (request: { agentType: string; phase: string; system: string; user: string }) => ScriptedDecision | undefined;
  /** Delays every reply by this much. */
  latencyMs?: number;
  /** Agent types whose first attempt answers a document that fails its schema. */
  invalidOnce?: readonly string[];
  /** Ticket files that already exist: their ticket agent reads the file first and appends its text to what it read. */
  extend?: readonly string[];
  /** The ticket collector, which cannot write, gives a resolved content for each merge conflict in its document. */
  resolveConflicts?: boolean;
}

/**
 * A scripted agent for every role of a workflow's phases. It reads who it is from the role line of the
 * system prompt, its inputs from the upstream headings and its assignment from the user message, so the
 * same request always gets the same answer. Requests of other runs get the demo's answers.
 */
export function workflowScript(options: WorkflowScriptOptions = {}): (request: RecordedRequest) => ScriptedReply {
  return (request: RecordedRequest): ScriptedReply => {
    const reply = workflowReply(request, options);
    return options.latencyMs !== undefined && options.latencyMs > 0 ? { ...reply, delayMs: options.latencyMs } : reply;
  };
}

function workflowReply(request: RecordedRequest, options: WorkflowScriptOptions): ScriptedReply {
  const conversation = readConversation(request);
  switch (conversation.stage) {
    case 'warmup':
      return warmupStep(conversation);
    case 'delivery_check':
      return deliveryStep(conversation);
    case 'qa_review':
      return qaStep(conversation);
    case 'act':
    case 'tool_followup': {
      const r = readWorkflowRequest(conversation, lastUserMessage(request));
      return r === null
        ? { content: 'This request names no workflow agent type, so there is nothing to answer as one.' }
        : actStep(r, options);
    }
    default: {
      const unreachable: never = conversation.stage;
      return { content: `Unknown stage ${String(unreachable)}.` };
    }
  }
}

function actStep(r: WorkflowRequest, options: WorkflowScriptOptions): ScriptedReply {
  const c = r.conversation;
  const files = options.ticketFile ?? {};
  const decision = (): ScriptedDecision =>
    options.decide?.({ agentType: r.agentType, phase: r.phase, system: c.system, user: r.user }) ?? { decisionType: 'ADVANCE' };
  const writes = c.exchanges.filter((e) => e.name === 'write_file');
  const canWrite = c.offered.has('write_file');

  if (r.role === 'orchestrator') return answer(r, options, delegation(r, Math.max(1, options.agentsPerPhase ?? 2)));
  if (r.agentType === 'discovery-agent') {
    const listing = last(c.exchanges, 'list_dir');
    if (!listing && c.offered.has('list_dir'))
      return tools(r, "list_dir on '.'", 'Listing the project root.', [['list_dir', { path: '.' }]]);
    return answer(r, options, discoveryReport(r, listing?.result ?? null));
  }
  if (r.agentType === 'planning-agent') return answer(r, options, planningResult(r, files));
  if (r.agentType === 'ticket-agent') {
    const ticket = ownTicket(r, files);
    const path = ticket.files[0];
    const extending = (options.extend ?? []).includes(path);
    const read = c.exchanges.find((e) => e.name === 'read_file' && e.args['path'] === path);
    if (extending && read === undefined && writes.length === 0 && c.offered.has('read_file'))
      return tools(r, `read_file ${path}`, `Reading ${path} before changing it.`, [['read_file', { path }]]);
    if (writes.length === 0 && canWrite) {
      const content = extending && read ? `${read.result.replace(/\n?$/, '\n')}\n${ticketContent(ticket)}` : ticketContent(ticket);
      return tools(r, `write_file ${path}`, `Writing ${path} for ticket ${ticket.ticketId}.`, [['write_file', { path, content }]]);
    }
    return answer(r, options, ticketResult(ticket, writes.length > 0));
  }
  if (r.agentType === 'discovery-collector') return answer(r, options, discoveryCollectorResult(r, decision()));
  if (r.agentType === 'planning-collector') return answer(r, options, planningCollectorResult(r, decision()));
  const conflicts = mergeConflicts(r);
  const unresolved = conflicts.filter((conflict) => !writes.some((w) => w.args['path'] === conflict.path));
  if (unresolved.length > 0 && canWrite) {
    return tools(
      r,
      `write_file for ${unresolved.length} conflicting file(s)`,
      `Resolving ${unresolved.map((u) => u.path).join(', ')}.`,
      unresolved.map((conflict) => ['write_file', { path: conflict.path, content: resolvedContent(conflict) }]),
    );
  }
  return answer(r, options, ticketCollectorResult(r, decision(), conflicts, Boolean(options.resolveConflicts) && !canWrite));
}

function tools(r: WorkflowRequest, nextAction: string, visible: string, calls: Array<[string, Record<string, unknown>]>): ScriptedReply {
  const block = microBlock({
    observation: `Working as ${r.agentType}; the answer comes after this step.`,
    planDelta: 'none',
    nextAction,
    knownRisks: 'the tool may fail and the step be repeated',
    delivery: 'NEEDS_WORK',
  });
  return {
    content: withReasoning(reasoningRequested(r.conversation), block, visible),
    toolCalls: calls.map(([name, args], i) => toolCall(r.conversation, i, name, args)),
  };
}

/** The document in a fenced block; a first attempt of an `invalidOnce` type leaves out a required field. */
function answer(r: WorkflowRequest, options: WorkflowScriptOptions, document: Document): ScriptedReply {
  const invalid = !r.retry && (options.invalidOnce ?? []).includes(r.agentType);
  const omitted = REQUIRED_FIELD[r.agentType] ?? REQUIRED_FIELD[r.role];
  const shown = invalid ? Object.fromEntries(Object.entries(document).filter(([key]) => key !== omitted)) : document;
  const block = microBlock({
    observation: `The ${r.agentType} document is complete${invalid ? `, but for ${omitted}` : ''}.`,
    planDelta: 'none',
    nextAction: 'final answer',
    knownRisks: 'the workflow checks the document against its schema',
    delivery: 'DONE',
  });
  const visible = `\`\`\`json\n${JSON.stringify(shown, null, 2)}\n\`\`\``;
  return { content: withReasoning(reasoningRequested(r.conversation), block, visible) };
}

function last(exchanges: readonly ToolExchange[], name: string): ToolExchange | undefined {
  return exchanges.filter((e) => e.name === name).pop();
}

function lastUserMessage(request: RecordedRequest): string {
  const messages: Array<{ role?: string; content?: unknown }> = Array.isArray(request.body?.messages) ? request.body.messages : [];
  const content = messages.filter((m) => m.role === 'user').pop()?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('') : '';
}
