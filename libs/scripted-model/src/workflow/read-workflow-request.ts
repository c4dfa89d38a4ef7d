import { Conversation } from '../demo/conversation';

/** The first line of every workflow role prompt; the agent type in backticks is what the scripted agent acts as. */
export const WORKFLOW_ROLE_LINE = /^You are the [^\n]+ of a Stagecraft workflow \(agent type `([A-Za-z0-9][A-Za-z0-9._:-]*)`\)\.$/m;

export type WorkflowPhase = 'discovery' | 'planning' | 'tickets';
export type WorkflowRole = 'orchestrator' | 'agent' | 'collector';

/** An upstream context as its `### <kind> <context id>` heading names it, with the text under it. */
export interface UpstreamSection {
  heading: string;
  /** `discovery`, `planning`, `ticket-result`, …: the `inputType` a collector reports it as; `null` for headings without an id. */
  inputType: string | null;
  contextId: string | null;
  body: string;
}

export interface TicketInfo {
  ticketId: string;
  title: string;
  files: string[];
  acceptanceCriteria: string[];
}

export interface MergeConflict {
  path: string;
  agentIds: string[];
  contextIds: string[];
}

/** Everything a workflow agent's request says about the agent and its inputs, read from the messages alone. */
export interface WorkflowRequest {
  agentType: string;
  phase: WorkflowPhase;
  role: WorkflowRole;
  /** The run's user message in full: the agent's assignment. */
  user: string;
  /** Whether the system prompt carries a `## Previous attempt` section (a rerun or a format correction). */
  retry: boolean;
  sections: UpstreamSection[];
  conversation: Conversation;
}

const HEADED_KINDS: ReadonlyArray<[prefix: string, inputType: string]> = [
  ['Discovery collector result', 'discovery-collector'],
  ['Planning collector result', 'planning-collector'],
  ['Discovery report', 'discovery'],
  ['Planning result', 'planning'],
  ['Ticket result', 'ticket-result'],
  ['Delegation', 'delegation'],
  ['Consolidation', 'consolidation'],
];

/** `null` when the request is not from a workflow agent of a phase (no role line, or a step agent). */
export function readWorkflowRequest(conversation: Conversation, user: string): WorkflowRequest | null {
  const agentType = WORKFLOW_ROLE_LINE.exec(conversation.system)?.[1];
  const match = agentType === undefined ? null : /^(discovery|planning|ticket)-(orchestrator|agent|collector)$/.exec(agentType);
  if (agentType === undefined || match === null) return null;
  return {
    agentType,
    phase: match[1] === 'ticket' ? 'tickets' : (match[1] as WorkflowPhase),
    role: match[2] as WorkflowRole,
    user,
    retry: /^## Previous attempt$/m.test(conversation.system),
    sections: upstreamSections(conversation.system),
    conversation,
  };
}

/** The system prompt cut at every `##` or `###` heading; only `###` sections are upstream contexts. */
function upstreamSections(system: string): UpstreamSection[] {
  const sections: UpstreamSection[] = [];
  let current: UpstreamSection | null = null;
  for (const line of system.split('\n')) {
    if (/^##(#)? /.test(line)) {
      if (current) sections.push(current);
      current = line.startsWith('### ') ? { ...classify(line.slice(4).trim()), body: '' } : null;
    } else if (current) current.body += `${line}\n`;
  }
  if (current) sections.push(current);
  return sections;
}

function classify(heading: string): Omit<UpstreamSection, 'body'> {
  for (const [prefix, inputType] of HEADED_KINDS) {
    const id = new RegExp(`^${prefix} (\\S+)$`).exec(heading)?.[1];
    if (id !== undefined) return { heading, inputType, contextId: id };
  }
  const result = /^Result from \S+ (\S+)$/.exec(heading);
  if (result) return { heading, inputType: 'result', contextId: result[1] };
  return { heading, inputType: null, contextId: null };
}

export const sectionsOf = (r: WorkflowRequest, inputType: string): UpstreamSection[] => r.sections.filter((s) => s.inputType === inputType);

/** Tickets written as `#### Ticket <id>: <title>` (in plans) or `### Ticket <id>: <title>` (a ticket agent's own). */
export function ticketsIn(text: string, level: '###' | '####'): TicketInfo[] {
  const tickets: TicketInfo[] = [];
  let current: TicketInfo | null = null;
  let inCriteria = false;
  for (const line of text.split('\n')) {
    const heading = new RegExp(`^${level} Ticket ([A-Za-z0-9][A-Za-z0-9._-]*): (.*)$`).exec(line);
    if (heading) {
      current = { ticketId: heading[1], title: heading[2].trim(), files: [], acceptanceCriteria: [] };
      tickets.push(current);
      inCriteria = false;
    } else if (current && line.startsWith('Files: ')) {
      const files = line.slice('Files: '.length).trim();
      current.files = files === 'none' ? [] : files.split(', ').filter((f) => f !== '');
    } else if (current && line === 'Acceptance criteria:') inCriteria = true;
    else if (current && inCriteria && line.startsWith('- ')) current.acceptanceCriteria.push(line.slice(2).trim());
    else inCriteria = false;
  }
  return tickets;
}

/** `- <path>: changed by <agent>, <agent> (contexts <id>, <id>)` under `### Merge conflicts`. */
export function mergeConflicts(r: WorkflowRequest): MergeConflict[] {
  return r.sections
    .filter((s) => s.heading === 'Merge conflicts')
    .flatMap((s) =>
      [...s.body.matchAll(/^- (.+): changed by (.+) \(contexts (.+)\)$/gm)].map((m) => ({
        path: m[1],
        agentIds: m[2].split(', '),
        contextIds: m[3].split(', '),
      })),
    );
}

/** The goal as the upstream context states it, else the assignment's first line. */
export function goalOf(r: WorkflowRequest): string {
  const goal = r.sections.find((s) => s.heading === 'Goal');
  const text = goal?.body.replace(/^\s*Workflow: \S+\s*/, '').trim();
  return text || r.user.trim().split('\n', 1)[0] || 'the workflow goal';
}
