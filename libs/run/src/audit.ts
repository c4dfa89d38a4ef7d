import { ReadOnlyToolName, StagePolicy } from '@stagecraft/contracts';
import { isGated } from './approvals';
import { isReasoningPrompt, toolClassOf, writesProject } from '@stagecraft/policy';
import { containsReasoning, findBlocks } from '@stagecraft/reasoning';
import { messagesWithOutputs } from './evolve';
import { RecordedRunEvent } from './replay';
import { isActing } from './rules';
import { offeredTools } from './next-step';

export type Invariant =
  | 'starts-with-run-started'
  | 'user-switches-kept'
  | 'tools-by-stage'
  | 'reasoning-instruction'
  | 'no-reasoning-reentry'
  | 'qa-read-only'
  | 'done-never-erased'
  | 'approval-before-gated-call'
  | 'only-ticket-agents-write';

export interface AuditFinding {
  /** The event (0-based, in the run's stream) that breaks the invariant. */
  index: number;
  type: string;
  invariant: Invariant;
  message: string;
}

// Recall only reads memory, so the reviewer may be offered it (retain and reflect write).
const READ_ONLY: readonly string[] = [...ReadOnlyToolName.options, 'memory_recall'];

/**
 * The full `<ide_reasoning>` block a `ReasoningRecorded` stands for: its own `text` in logs written
 * before 0018, otherwise the first block of the response it was recorded from.
 */
export const reasoningText = (recorded: { text?: string }, responseContent: string | undefined): string =>
  recorded.text ?? findBlocks(responseContent ?? '')[0]?.text ?? '';

/**
 * The invariants of DESIGN.md, checked over one run's stored events: the user's switches in every
 * stage policy, tools decided by stage alone (in the policy and in every request), a reasoning
 * instruction exactly when reasoning is on, no earlier reasoning in the conversation, QA that
 * reads only and changes no answer, a `DONE` that stays, and no gated tool call (`approve`) that
 * ran without a person's approval before it. Each finding names the event.
 */
export function auditRun(recorded: readonly RecordedRunEvent[]): AuditFinding[] {
  // A tool result held by reference is checked as the model was sent it.
  const events = messagesWithOutputs(recorded);
  const findings: AuditFinding[] = [];
  const flag = (index: number, invariant: Invariant, message: string) =>
    findings.push({ index, type: events[index]?.type ?? '', invariant, message });
  const first = events[0];
  if (first?.type !== 'RunStarted') {
    flag(0, 'starts-with-run-started', 'the stream does not start with RunStarted');
    return findings;
  }
  const start = first.data;
  let policy: StagePolicy | null = null;
  let doneAt = -1;
  let lastAnswer: string | null = null;
  const blocks: string[] = [];
  const responses = new Map<string, string>();
  // Approval ids asked for, by the call each holds back; calls a person let through.
  const asked = new Map<string, string>();
  const approved = new Set<string>();

  events.forEach((event, i) => {
    switch (event.type) {
      case 'StageEntered': {
        // An entry without a policy keeps the one before it; a first entry always records one.
        policy = event.data.policy ?? policy;
        if (policy === null) {
          flag(i, 'tools-by-stage', `stage ${event.data.stage} entered with no policy`);
          break;
        }
        const { stage, userMode, reasoningEnabled, tools, toolLoop, prompts, reasoning } = policy;
        if (userMode !== start.userMode || reasoningEnabled !== start.reasoningEnabled)
          flag(
            i,
            'user-switches-kept',
            `${stage} policy has mode ${userMode} and reasoning ${reasoningEnabled}; the user set ${start.userMode} and ${start.reasoningEnabled}`,
          );
        if (stage !== event.data.stage) flag(i, 'tools-by-stage', `stage ${event.data.stage} entered with the policy of ${stage}`);
        if (stage === 'delivery_check' && (tools.length > 0 || toolLoop))
          flag(i, 'tools-by-stage', `delivery_check offers ${tools.join(', ')}`);
        // docs/decisions/0036: a workflow agent other than a ticket agent works in the real root.
        const writing = [...new Set([...tools, ...(policy.offered ?? [])])].filter((t) => ['write', 'execute'].includes(toolClassOf(t)));
        if (start.agent && !writesProject(start.agent.agentType) && writing.length > 0)
          flag(
            i,
            'only-ticket-agents-write',
            `${start.agent.agentType} ${start.agent.agentId} is offered ${writing.join(', ')} in ${stage}`,
          );
        if (stage === 'qa_review' && tools.some((t) => !READ_ONLY.includes(t)))
          flag(i, 'qa-read-only', `qa_review offers ${tools.filter((t) => !READ_ONLY.includes(t)).join(', ')}`);
        if (reasoning.required !== prompts.some(isReasoningPrompt))
          flag(
            i,
            'reasoning-instruction',
            `${stage} ${reasoning.required ? 'requires reasoning but composes no reasoning prompt' : 'composes a reasoning prompt the user did not enable'}`,
          );
        if (reasoning.required && !start.reasoningEnabled)
          flag(i, 'user-switches-kept', `${stage} requires reasoning the user did not enable`);
        break;
      }
      case 'ModelRequested': {
        const offered = [...event.data.toolNames].sort().join(',');
        const expected = policy ? offeredTools(policy) : { toolNames: [] };
        const allowed = [...expected.toolNames].sort().join(',');
        if (policy === null || event.data.stage !== policy.stage || offered !== allowed)
          flag(
            i,
            'tools-by-stage',
            `request in ${event.data.stage} offered [${offered}]; the ${policy?.stage ?? 'missing'} policy offers [${allowed}]`,
          );
        else if (event.data.toolChoice !== expected.toolChoice)
          flag(
            i,
            'tools-by-stage',
            `request in ${event.data.stage} offered tools with tool_choice ${event.data.toolChoice ?? 'auto'}; the policy ${policy.toolLoop ? 'runs them' : 'forbids calling them'}`,
          );
        break;
      }
      case 'ToolCallRequested':
        if (!isActing(event.data.stage) || start.userMode !== 'agent' || event.data.stage !== policy?.stage)
          flag(i, 'tools-by-stage', `${event.data.tool} requested in ${start.userMode} mode, stage ${event.data.stage}`);
        break;
      case 'ModelResponded':
        responses.set(event.data.requestId, event.data.content);
        break;
      case 'ReasoningRecorded': {
        const block = reasoningText(event.data, responses.get(event.data.requestId));
        if (block !== '') blocks.push(block);
        break;
      }
      case 'MessageAppended': {
        const { kind, content } = event.data;
        if ((kind === 'assistant' || kind === 'delegation') && containsReasoning(content))
          flag(i, 'no-reasoning-reentry', `a ${kind} message carries <ide_reasoning>, which later requests would send again`);
        else if (blocks.some((block) => content.includes(block)))
          flag(i, 'no-reasoning-reentry', `a ${kind} message quotes a recorded reasoning block`);
        if (policy?.stage === 'qa_review') flag(i, 'qa-read-only', `a ${kind} message was added during QA`);
        if (
          kind === 'assistant' &&
          isActing(policy?.stage) &&
          policy?.delegation.depth === 0 &&
          !event.data.toolCalls?.length &&
          content.trim() !== ''
        )
          lastAnswer = content;
        break;
      }
      case 'ApprovalRequested':
        if (event.data.callId) asked.set(event.data.approvalId, event.data.callId);
        break;
      case 'ApprovalGiven': {
        const callId = asked.get(event.data.approvalId);
        if (callId) approved.add(callId);
        break;
      }
      case 'ToolCallCompleted': {
        const { tool, callId } = event.data;
        if (isGated(start.approve, tool) && !approved.has(callId))
          flag(i, 'approval-before-gated-call', `${tool} ran under approve=${start.approve} without ApprovalGiven before it`);
        break;
      }
      case 'DeliveryChecked':
        if (event.data.state === 'DONE' && doneAt < 0) doneAt = i;
        break;
      case 'RunCompleted':
        if (doneAt >= 0 && event.data.deliveryState !== 'DONE')
          flag(i, 'done-never-erased', `the run completed ${event.data.deliveryState} after DONE (event ${doneAt})`);
        if (event.data.answer !== (lastAnswer ?? ''))
          flag(i, 'qa-read-only', `the run completed with an answer its acting stages did not give`);
        break;
      default:
        break;
    }
  });
  return findings;
}
