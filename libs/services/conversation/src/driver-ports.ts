import type { EventStore } from '@stagecraft/event-store';
import type { MessageBus, Requester } from '@stagecraft/messaging';
import type { ModelGateway } from '@stagecraft/model-gateway';
import type { CompactionSettings } from '@stagecraft/contracts';
import type { RunLimits, StageMessageRole } from '@stagecraft/run';
import type { Logger } from 'pino';

/** What a run driver may touch: everything else reaches it through events. */
export interface DriverPorts {
  store: EventStore;
  requester: Requester;
  gateway: ModelGateway;
  bus: MessageBus;
  prefix: string;
  clock: () => Date;
  newId: () => string;
  logger: Logger;
  limits: RunLimits;
  /** How the stage's part of each prompt is sent (`STAGECRAFT_STAGE_MESSAGE_ROLE`, docs/decisions/0052). */
  stageMessageRole: StageMessageRole;
  /** How new runs compact what their requests carry (recorded in each `RunStarted`); null: never. */
  compaction: CompactionSettings | null;
  /** The directories a run's project root may be in; undefined: any. */
  projectRoots?: readonly string[];
  /** The replica, recorded as `metadata.writer` on every run commit where several replicas may write; undefined: not recorded. */
  writer?: string;
  /** Called with the event types of each batch right after it is committed to a run stream (a fault-injection hook for crash tests). */
  afterCommit?: (types: readonly string[]) => void;
}
