import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApprovalPolicy,
  PhaseName,
  WorkflowCancelReply,
  WorkflowCancelRequest,
  WorkflowView,
  validationError,
} from '@stagecraft/contracts';
import { Requester } from '@stagecraft/messaging';
import { ShellConfig } from '@stagecraft/service-shell';
import { EXIT } from '../exit-codes';
import { connectSystem } from './session';

export interface WorkflowFlags {
  root: string;
  phases?: PhaseName[];
  reasoning?: boolean;
  approve: ApprovalPolicy;
  gate?: ('after-planning' | 'before-merge')[];
  parallel?: number;
  json?: boolean;
  timeout: number;
}

/** How `workflow start|run` ended: completed, failed or stopped, or waiting for a person (embedded, not on a terminal). */
export type WorkflowExit = typeof EXIT.done | typeof EXIT.failed | typeof EXIT.waiting;

const write = (line: string) => process.stdout.write(`${line}\n`);

/** `workflow start "<goal>"` and `workflow run <name>`: start, then follow to the end with live progress. */
export async function startWorkflow(
  start: { goal: string; workflow?: string },
  flags: WorkflowFlags,
  config: ShellConfig,
): Promise<WorkflowExit> {
  const system = await connectSystem(config, Boolean(flags.json), { resume: true });
  try {
    const { workflowId } = await system.requester.request('workflow.start', {
      goal: start.goal,
      projectRoot: resolve(flags.root),
      ...(flags.phases ? { phases: flags.phases } : {}),
      ...(start.workflow ? { workflow: start.workflow } : {}),
      reasoningEnabled: Boolean(flags.reasoning),
      approve: flags.approve,
      gates: { afterPlanning: Boolean(flags.gate?.includes('after-planning')), beforeMerge: Boolean(flags.gate?.includes('before-merge')) },
      limits: flags.parallel ? { maxParallelAgents: flags.parallel } : {},
    });
    if (!flags.json) write(`workflow ${workflowId}`);
    return await followWorkflow(system.requester, workflowId, flags, Boolean(config.natsUrl), flags.root);
  } finally {
    await system.close();
  }
}

/** A step's title and its prompt, indented: seed 004's user-facing part, never its agentRole or guidance. */
export function stepLines(step: { title: string; prompt: string }): string[] {
  return [`▸ ${step.title}`, ...step.prompt.split('\n').map((line) => `    ${line}`)];
}

/** One line per phase entry: how many of its agents run, are done and failed. */
export function progressLine(phase: WorkflowView['phases'][number]): string {
  const count = (test: (s: string) => boolean) => phase.agents.filter((a) => test(a.status)).length;
  const running = count((s) => s === 'dispatched');
  const done = count((s) => s === 'completed');
  const failed = count((s) => s === 'failed' || s === 'invalid');
  const decision = phase.decision ? ` → ${phase.decision.decisionType}` : '';
  return `${phase.phase} (round ${phase.round}): ${running} running, ${done} done, ${failed} failed${decision}`;
}

/**
 * Polls `workflow.get` and prints each phase's progress as it changes. A gate is asked on a terminal;
 * elsewhere, embedded, the command stops (exit 4, waiting) and leaves the workflow waiting in the store.
 */
export async function followWorkflow(
  requester: Requester,
  workflowId: string,
  flags: Pick<WorkflowFlags, 'json' | 'timeout'>,
  distributed: boolean,
  root: string,
): Promise<WorkflowExit> {
  const deadline = Date.now() + flags.timeout;
  const printed = new Map<string, string>();
  const askedTools = new Set<string>();
  let asked: string | null = null;
  for (;;) {
    const view = await requester.request('workflow.get', { workflowId });
    if (!flags.json)
      view.phases.forEach((phase, index) => {
        // A step is introduced by what the user is meant to see of it: its title and prompt.
        if (phase.step && !printed.has(`${index}`)) for (const text of stepLines(phase.step)) write(text);
        const line = progressLine(phase);
        if (printed.get(`${index}`) !== line) write(`  ${line}`);
        printed.set(`${index}`, line);
      });
    if (view.status !== 'running' && view.status !== 'waiting') {
      if (flags.json) write(JSON.stringify(view));
      else write(endLine(view));
      if (!flags.json) for (const line of [...keptLines(view), ...keptCopies(view)]) write(line);
      return view.status === 'completed' ? EXIT.done : EXIT.failed;
    }
    const toolApproval = await answerToolApprovals(requester, view, askedTools, flags, distributed, root);
    if (toolApproval === 'waiting') return EXIT.waiting;
    const pending = view.pendingApproval;
    if (pending && asked !== pending.approvalId) {
      asked = pending.approvalId;
      if (process.stdin.isTTY && process.stdout.isTTY) {
        const answer = await ask(`Allow: ${pending.summary}? [y/N/reason] `);
        const approve = /^y(es)?$/i.test(answer.trim());
        await requester.request('approval.answer', {
          id: workflowId,
          approvalId: pending.approvalId,
          decision: approve ? 'approve' : 'deny',
          ...(!approve && answer.trim() && !/^n(o)?$/i.test(answer.trim()) ? { reason: answer.trim() } : {}),
        });
      } else if (!distributed) {
        if (flags.json) write(JSON.stringify(view));
        else {
          write(`⏸ waiting for approval: ${pending.summary}`);
          write(`answer with: stagecraft approve ${workflowId} [--deny --reason TEXT] --root ${root}`);
        }
        return EXIT.waiting;
      } else if (!flags.json) write(`⏸ waiting for approval: ${pending.summary} (stagecraft approve ${workflowId})`);
    }
    if (Date.now() > deadline) {
      write(`✘ gave up after ${flags.timeout} ms; the workflow goes on: stagecraft workflow show ${workflowId}`);
      return EXIT.failed;
    }
    await sleep(250);
  }
}

/** How a workflow ended, in one line: only a completion is a success. */
export function endLine(view: WorkflowView): string {
  switch (view.status) {
    case 'completed':
      return `✔ completed: ${view.summary ?? ''}`;
    case 'stopped':
      return `■ stopped after ${view.halt?.phase ?? '?'}: the ${view.halt?.agentId ?? 'collector'} found the goal cannot be reached: ${view.halt?.reason ?? ''}`;
    case 'cancelled':
      return `✘ ${view.summary ?? 'cancelled'}`;
    default:
      return `✘ ${view.status} (${view.failure?.code}): ${view.failure?.reason}`;
  }
}

/**
 * The tool calls the workflow's agents wait on, each shown once: asked on a terminal; elsewhere, embedded,
 * the command stops (the agent's run and the workflow stay in the store: `stagecraft approve <runId>`,
 * then `stagecraft workflow resume <id>`); over NATS it goes on following while someone answers.
 */
async function answerToolApprovals(
  requester: Requester,
  view: WorkflowView,
  asked: Set<string>,
  flags: Pick<WorkflowFlags, 'json'>,
  distributed: boolean,
  root: string,
): Promise<'waiting' | 'going-on'> {
  for (const agent of view.phases.flatMap((phase) => phase.agents)) {
    const pending = agent.pendingApproval;
    if (!pending || asked.has(pending.approvalId)) continue;
    asked.add(pending.approvalId);
    if (process.stdin.isTTY && process.stdout.isTTY) {
      const answer = await ask(`${agent.agentId} asks to ${pending.summary}. Allow? [y/N/reason] `);
      const approve = /^y(es)?$/i.test(answer.trim());
      await requester.request('approval.answer', {
        id: agent.runId,
        approvalId: pending.approvalId,
        decision: approve ? 'approve' : 'deny',
        ...(!approve && answer.trim() && !/^n(o)?$/i.test(answer.trim()) ? { reason: answer.trim() } : {}),
      });
      continue;
    }
    if (flags.json) {
      if (!distributed) write(JSON.stringify(view));
    } else write(`⏸ ${agent.agentId} waits for approval: ${pending.summary} (stagecraft approve ${agent.runId})`);
    if (!distributed) {
      if (!flags.json) write(`then go on with: stagecraft workflow resume ${view.workflowId} --root ${root}`);
      return 'waiting';
    }
  }
  return 'going-on';
}

/** `workflow resume <id>`: drives a workflow left by another process (embedded) or follows it (NATS) to its end. */
export async function resumeWorkflow(
  workflowId: string,
  flags: Pick<WorkflowFlags, 'json' | 'timeout' | 'root'>,
  config: ShellConfig,
): Promise<WorkflowExit> {
  const system = await connectSystem(config, Boolean(flags.json), { resume: true });
  try {
    return await followWorkflow(system.requester, workflowId, flags, Boolean(config.natsUrl), flags.root);
  } finally {
    await system.close();
  }
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/** `workflow show <id>`: the tree of phases → agents → runs. */
export function formatWorkflowTree(view: WorkflowView): string {
  const lines = [`workflow ${view.workflowId} (${view.kind}) ${view.status}: ${view.goal}`];
  view.phases.forEach((phase, p) => {
    const lastPhase = p === view.phases.length - 1;
    lines.push(`${lastPhase ? '└─' : '├─'} ${progressLine(phase)}${phase.step ? `: ${phase.step.title}` : ''}`);
    phase.agents.forEach((agent, a) => {
      const bar = lastPhase ? '   ' : '│  ';
      const branch = a === phase.agents.length - 1 ? '└─' : '├─';
      const summary = agent.summary ? `: ${agent.summary}` : '';
      const waits = agent.pendingApproval
        ? ` ⏸ waits for approval ${agent.pendingApproval.approvalId}: ${agent.pendingApproval.summary} (stagecraft approve ${agent.runId})`
        : '';
      lines.push(
        `${bar}${branch} ${agent.agentId} [${agent.role}, ${agent.agentType}] attempt ${agent.attempt} ${agent.status} → run ${agent.runId}${summary}${waits}`,
      );
    });
  });
  if (view.pendingApproval) lines.push(`⏸ waiting for approval ${view.pendingApproval.approvalId}: ${view.pendingApproval.summary}`);
  if (view.summary) lines.push(`summary: ${view.summary}`);
  if (view.failure) lines.push(`failed (${view.failure.code}): ${view.failure.reason}`);
  if (view.halt) lines.push(`stopped by ${view.halt.agentId} after ${view.halt.phase}: ${view.halt.reason}`);
  lines.push(...keptLines(view));
  if (view.worktrees.length > 0) {
    lines.push('ticket copies:');
    for (const w of view.worktrees) lines.push(`  ${w.agentId}${w.ticketId ? ` (ticket ${w.ticketId})` : ''} ${w.state}: ${w.path}`);
  }
  return lines.join('\n');
}

/** The ticket copies a finished workflow keeps (not merged, or merged with a conflict), and where they are. */
export function keptCopies(view: WorkflowView): string[] {
  const kept = view.worktrees.filter((w) => w.state !== 'merged');
  if (kept.length === 0) return [];
  return [
    `ticket copies kept (${kept.length}):`,
    ...kept.map((w) => `  ${w.agentId}${w.ticketId ? ` (ticket ${w.ticketId})` : ''} ${w.state}: ${w.path}`),
  ];
}

/** What a merge left for the user: each file kept as they have it, and where the ticket's version is. */
export function keptLines(view: WorkflowView): string[] {
  if (view.conflicts.length === 0) return [];
  return [
    `⚠ ${view.conflicts.length} file(s) not merged; your version is kept in the project root:`,
    ...view.conflicts.map(
      (c) => `  ${c.path} (${c.reason ?? 'conflict'}, ${c.agentIds.join(', ')})${c.kept ? `: the ticket's version is at ${c.kept}` : ''}`,
    ),
  ];
}

export async function showWorkflow(workflowId: string, flags: { json?: boolean }, config: ShellConfig): Promise<void> {
  const system = await connectSystem(config, true);
  try {
    const view = await system.requester.request('workflow.get', { workflowId });
    write(flags.json ? JSON.stringify(view) : formatWorkflowTree(view));
  } finally {
    await system.close();
  }
}

/**
 * `workflow cancel <id>`: `workflow.cancel`, over NATS or embedded on the store. Exit 0 when this
 * cancelled it, 1 when it had ended already (nothing changed).
 */
export async function cancelWorkflowCommand(
  workflowId: string,
  flags: { reason?: string; json?: boolean },
  config: ShellConfig,
): Promise<WorkflowExit> {
  const parsed = WorkflowCancelRequest.safeParse({ workflowId, reason: flags.reason });
  if (!parsed.success) throw validationError(parsed.error, 'workflow cancel arguments');
  const system = await connectSystem(config, true, { resume: false });
  let reply: WorkflowCancelReply;
  try {
    reply = await system.requester.request('workflow.cancel', parsed.data);
  } finally {
    await system.close();
  }
  if (flags.json) write(JSON.stringify(reply));
  else if (reply.outcome === 'cancelled')
    write(`workflow ${workflowId} cancelled${reply.cancelledRuns.length ? `; stopped ${reply.cancelledRuns.join(', ')}` : ''}`);
  else write(`workflow ${workflowId} had already ended (${reply.status}); nothing changed`);
  return reply.outcome === 'cancelled' ? EXIT.done : EXIT.failed;
}
