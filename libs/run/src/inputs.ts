import {
  AgentBrief,
  ApprovalDecision,
  ApprovalPolicy,
  CancelledBy,
  CompactionModelCall,
  CompactionSettings,
  DelegationState,
  EditorBridge,
  ErrorCode,
  EventData,
  EventRange,
  HistorySummary,
  ModelCallMeta,
  PromptAssembleRequest,
  QAModelCall,
  QAReport,
  StagePolicy,
  ToolResult,
  UserMode,
} from '@stagecraft/contracts';
import { ModelRequestRecord, ModelResponse, PriorTurns } from './state';

/** What went wrong, as the error reply that reported it. */
export interface Fault {
  code: ErrorCode;
  message: string;
}

/**
 * What the effects shell observed, in the past tense. Each carries `at`, the time the shell saw it:
 * the decider reads no clock.
 */
export type RunInput =
  | {
      type: 'RunRequested';
      runId: string;
      conversationId: string;
      userMode: UserMode;
      reasoningEnabled: boolean;
      message: string;
      projectRoot: string;
      /** The last revision of the conversation's earlier turns, when there are any. */
      historyThrough?: number;
      /** When and how the run compacts what its requests carry; absent: it never does. */
      compaction?: CompactionSettings;
      /** The turns `historyThrough` refers to, as the shell loaded them (absent: none). */
      prior?: PriorTurns;
      /** The bounds the run keeps for its whole life (recorded in `RunStarted`); absent: whatever each decision is given. */
      limits?: EventData<'RunStarted'>['limits'];
      /** Which tool calls wait for a person (recorded in `RunStarted`, never changed); absent: none. */
      approve?: ApprovalPolicy;
      /** Set when the run is an agent of a workflow: every prompt of the run is assembled with it. */
      agent?: AgentBrief;
      /**
       * The rules the run's answers are read by (docs/decisions/0056): absent for a new run, which follows
       * today's; a replay passes what its log recorded, 1 where the log recorded none.
       */
      rules?: 1 | 2;
      /** The editor the run's file reads and writes go through (recorded in `RunStarted`); absent: the disk. */
      editor?: EditorBridge;
      at: string;
    }
  /** The shell picked up a stored run; only logs written by older versions need anything done. */
  | { type: 'RunResumed'; at: string }
  /** `request` is absent when the request is stored already (a retried call). */
  | { type: 'ModelAnswered'; request?: ModelRequestRecord; response: ModelResponse; at: string }
  | { type: 'ModelCallFailed'; request?: ModelRequestRecord; fault: Fault; at: string }
  | { type: 'ToolAnswered'; callId: string; result: ToolResult; at: string }
  | { type: 'ToolCallFailed'; callId: string; fault: Fault; at: string }
  | { type: 'ReviewReturned'; report: QAReport; modelCalls: QAModelCall[]; at: string }
  | { type: 'ReviewFailed'; fault: Fault; at: string }
  /** A person answered the approval the run waits for; `reason` is told to the model on a denial. */
  | { type: 'ApprovalAnswered'; approvalId: string; decision: ApprovalDecision; reason?: string; at: string }
  /** Someone stopped the run (`run.cancel`, Ctrl-C, an MCP client, a workflow); `reason` is for people, never the model. */
  | { type: 'RunCancelled'; by: CancelledBy; reason: string; at: string }
  /** A person takes a cancelled run up again (`runs resume`). */
  | { type: 'RunContinued'; by: CancelledBy; at: string }
  /** The shell could not go on (an error no input above describes). */
  | { type: 'RunStopped'; fault: Fault; at: string };

/**
 * What the decider may need that only another service knows: the stage policies (policy service)
 * and a recovery prompt's text (prompt assembly). The shell fetches what a decision asks for and
 * decides again with it; nothing here is I/O.
 */
export interface Knowledge {
  /** Every stage's policy for the user's switches and a delegation chain, or undefined if not fetched. */
  policies(delegation: DelegationState): readonly StagePolicy[] | undefined;
  /** The assembled text of a recovery prompt for this decision, or undefined if not fetched. */
  prompt(promptId: string): string | undefined;
  /** The summary the model wrote for a compaction (or why it could not), or undefined if not asked yet. */
  summary(compactionId: string): ModelSummary | undefined;
}

/** What the shell got when it asked the model to summarise (the `model` compaction method). */
export type ModelSummary = { summary: HistorySummary; modelCall: CompactionModelCall } | { failed: string };

export type Need =
  | {
      kind: 'policies';
      request: { userMode: UserMode; reasoningEnabled: boolean; delegation: DelegationState; workflowAgentType?: string };
    }
  | { kind: 'prompt'; promptId: string; request: PromptAssembleRequest }
  /** A summary by the model: assemble the summarize prompt, send it with `transcript`, read the answer's sections. */
  | {
      kind: 'summary';
      compactionId: string;
      assemble: PromptAssembleRequest;
      transcript: string;
      /** What the summary stands for: every section cites it. */
      covers: EventRange[];
      meta: ModelCallMeta;
    };

export const delegationKey = (delegation: DelegationState): string => delegation.chain.join('\u0000');
