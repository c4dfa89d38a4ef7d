import { FeedEvent, WorkflowEvent } from '@stagecraft/contracts';

const clip = (text: string, max = 100) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The files a write names (its diff follows once it ran), rather than the start of its content. */
function writeTarget(tool: string, args: Record<string, unknown>): string | null {
  if (tool === 'write_file' && typeof args['path'] === 'string') return clip(args['path'], 100);
  if (tool !== 'apply_patch' || typeof args['patch'] !== 'string') return null;
  const lines = args['patch'].split('\n');
  const named = (line: string | undefined) =>
    (line ?? '')
      .slice(4)
      .split('\t')[0]
      .trim()
      .replace(/^[ab]\//, '');
  const paths = lines.flatMap((line, i) => {
    if (!line.startsWith('+++ ')) return [];
    // A deletion names its file on the old side.
    const path = named(line) === '/dev/null' ? named(lines[i - 1]) : named(line);
    return path ? [path] : [];
  });
  return paths.length > 0 ? clip([...new Set(paths)].join(', '), 100) : null;
}

/**
 * One human line per event of the public run feed (or of a workflow's stream), or null for events that
 * would only be noise on a terminal. A stored run event is described as its public event (`toFeedEvent`).
 */
export function describeEvent(event: FeedEvent | WorkflowEvent): string | null {
  switch (event.type) {
    case 'RunStarted':
      return `run ${event.data.runId} (${event.data.userMode}, reasoning ${event.data.reasoningEnabled ? 'on' : 'off'}) in ${event.data.projectRoot}`;
    case 'StageEntered': {
      const p = event.data.policy;
      const entered = `▶ ${event.data.stage}${event.data.iteration ? ` #${event.data.iteration}` : ''}`;
      // Without a policy, the stage kept the one it was entered with before.
      if (!p) return `${entered}  same policy`;
      return `${entered}  tools: ${p.toolLoop && p.tools.length ? p.tools.join(', ') : 'none'}  reasoning: ${p.reasoning.rule}`;
    }
    case 'ModelRequested':
      // Stored with the response (docs/decisions/0009), so it arrives when the model has answered.
      return `  → asked ${event.data.model} (${event.data.messageCount} messages, ~${event.data.tokenEstimate} tokens)`;
    case 'ModelResponded': {
      const { usage } = event.data;
      const tokens = usage
        ? `, ${usage.promptTokens} prompt (${usage.cachedPromptTokens ?? 0} cached) / ${usage.completionTokens} completion tokens`
        : '';
      return `  ← ${event.data.toolCalls.length ? `${event.data.toolCalls.length} tool call(s)` : 'answer'} in ${Math.round(event.data.latencyMs)} ms${tokens}`;
    }
    case 'ReasoningRecorded':
      return `  ✎ ${event.data.format} reasoning: next ${clip(event.data.outcome.next_action, 60)} · delivery ${event.data.outcome.delivery_state}`;
    case 'ToolCallRequested':
      return `  ⚙ ${event.data.tool} ${writeTarget(event.data.tool, event.data.arguments) ?? clip(JSON.stringify(event.data.arguments), 80)}`;
    case 'ToolCallCompleted':
      return `    ${event.data.ok ? '✓' : '✗'} ${event.data.tool} (${Math.round(event.data.durationMs)} ms)${event.data.ok ? '' : `: ${clip(event.data.output, 80)}`}`;
    case 'ToolCallRejected':
      return `    ⊘ ${event.data.tool} refused: ${event.data.code} ${clip(event.data.reason, 80)}`;
    case 'MessageAppended':
      return event.data.kind === 'correction' ? `  ↺ correction: ${clip(event.data.content.split('\n').at(-1) ?? '', 80)}` : null;
    case 'InstructionIssued':
      return `  ⇄ ${event.data.instruction.kind}${event.data.accepted ? '' : ` refused: ${event.data.reason}`}`;
    case 'DeliveryChecked':
      return `  ■ delivery: ${event.data.state}`;
    case 'QAReportIssued': {
      const calls = event.data.modelCalls ?? [];
      const cost = calls.length
        ? ` (${calls.length} model call${calls.length === 1 ? '' : 's'}, ${Math.round(calls.reduce((ms, c) => ms + c.latencyMs, 0))} ms)`
        : '';
      return `  QA ${event.data.report.verdict}${cost}: ${clip(event.data.report.summary, 90)}`;
    }
    case 'LimitReached':
      return `  ⚠ ${event.data.limit} (${event.data.value}) ran out in ${event.data.stage} #${event.data.iteration}`;
    case 'RunCompleted':
      return `✔ completed (${event.data.deliveryState}${event.data.limit ? `, ${event.data.limit} ran out` : ''})${event.data.cause ? `: ${event.data.cause}` : ''}`;
    case 'RunFailed':
      return `✘ failed: ${event.data.code} ${event.data.reason}`;
    case 'RunCancelled':
      return `⊘ cancelled by ${event.data.by}${event.data.reason ? `: ${clip(event.data.reason, 80)}` : ''}`;
    case 'RunContinued':
      return `↻ continued by ${event.data.by} after its cancellation`;
    case 'HistoryCompacted': {
      const { method, replaced, tokensBefore, tokensAfter } = event.data;
      return `  history compacted (${method}): ${replaced} messages summarised, ~${tokensBefore} → ~${tokensAfter} tokens`;
    }
    case 'ApprovalRequested':
      return `  ⏸ waiting for approval: ${clip(event.data.summary, 120)}`;
    case 'ApprovalGiven':
      return `  ✓ approved${event.data.note ? `: ${clip(event.data.note, 80)}` : ''}`;
    case 'ApprovalDenied':
      return `  ⊘ denied${event.data.reason ? `: ${clip(event.data.reason, 80)}` : ''}`;
    // A workflow's own stream: one line per step of the workflow.
    case 'WorkflowStarted':
      return `workflow ${event.data.workflowId} (${event.data.kind}) in ${event.data.projectRoot}: ${clip(event.data.goal, 80)}`;
    case 'PhaseStarted':
      return `▶ phase ${event.data.phase}${event.data.round > 1 ? ` (round ${event.data.round})` : ''}`;
    case 'AgentDispatched':
      return `  → ${event.data.agentType} ${event.data.agentId}${event.data.attempt > 1 ? ` (attempt ${event.data.attempt})` : ''}: ${clip(event.data.assignedGoal, 70)}`;
    case 'AgentReturned':
      return `  ← ${event.data.agentId} ${event.data.outcome}${event.data.error ? `: ${clip(event.data.error.message, 70)}` : ''}`;
    case 'PhaseConsolidated':
      return `  ■ ${event.data.phase}: ${event.data.decisionType} ${clip(event.data.rationale, 80)}`;
    case 'PhaseRerouted':
      return `  ↺ back from ${event.data.from} to ${event.data.to}: ${clip(event.data.reason, 80)}`;
    case 'WorktreesMerged': {
      const files = event.data.merged.reduce((n, m) => n + m.files.length, 0);
      const conflicts = event.data.conflicts.length;
      return `  ⇉ merged ${files} file${files === 1 ? '' : 's'}${conflicts ? `, ${conflicts} conflict${conflicts === 1 ? '' : 's'}` : ''}`;
    }
    case 'ConflictsResolved':
      return `  ⇉ resolved ${event.data.resolved.length} conflict(s)${event.data.unresolved.length ? `, ${event.data.unresolved.length} left for the user` : ''}`;
    case 'WorkflowCompleted':
      return `✔ workflow completed: ${clip(event.data.summary, 90)}`;
    case 'WorkflowHalted':
      return `■ workflow stopped by ${event.data.agentId} after ${event.data.phase}: ${clip(event.data.reason, 80)}`;
    case 'WorkflowFailed':
      return `✘ workflow failed: ${event.data.code} ${event.data.reason}`;
    case 'WorkflowCancelled':
      return `✘ workflow cancelled by ${event.data.by}${event.data.reason ? `: ${clip(event.data.reason, 80)}` : ''}`;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
