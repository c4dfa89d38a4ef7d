import { toErrorReply } from '@stagecraft/contracts';
import { ProcessorFailure, startProcessor } from '@stagecraft/event-store';
import { retainRunEvents } from '@stagecraft/messaging';
import type { ServiceProcessor } from '@stagecraft/service-shell';
import { subscribeRunCancelled } from './cancel-notices';
import type { Conversation } from './dependencies';
import { sweepEveryMs } from './leases/lease-decisions';
import { ProcessorLeadership } from './leases/processor-leadership';
import { RUN_FOLLOW_UP, runFollowUp } from './processors/run-follow-up';
import { WORKFLOW_FOLLOW_UP, workflowFollowUp } from './workflow/workflow-follow-up';

const onError =
  (c: Conversation, processor: string) =>
  ({ during, error, attempt, retryInMs, event }: ProcessorFailure) =>
    c.ports.logger.error(
      { processor, during, attempt, retryInMs, eventId: event?.id, type: event?.type, err: toErrorReply(error).message },
      `${processor} failed; trying again`,
    );

/**
 * What follows the log (turns, the live feed), started in this order before the first request: the
 * run follow-up catches up first, so a turn a crash left unwritten is stored before any run is resumed
 * or any new message is read; then the runs and the workflows are resumed. Each processor runs on the
 * replica that holds its lease, and a sweep takes over what a dead replica held: its processors and its
 * runs (docs/decisions/0026).
 */
export const conversationProcessors: Record<string, ServiceProcessor<Conversation>> = {
  async 'cancel-notices'(c) {
    // Before anything is published: a late subscriber reads the feed from a run's start.
    await retainRunEvents(c.ports.bus, c.ports.prefix, c.scale.runEventsMaxAgeMs);
    // Whichever replica receives `run.cancel`, the one driving the run hears of it here.
    const subscription = subscribeRunCancelled(c.ports.bus, c.ports.prefix, (runId) => {
      c.registry.noticeCancelled(runId).catch((error: unknown) => {
        c.ports.logger.warn({ runId, err: toErrorReply(error).message }, 'cancellation notice could not be checked');
      });
    });
    return { stop: () => subscription.unsubscribe() };
  },

  async 'run-follow-up'(c) {
    const leadership = new ProcessorLeadership(c.leases, RUN_FOLLOW_UP, () =>
      startProcessor(c.ports.store, c.ports.store.checkpoints, runFollowUp(c.ports), { onError: onError(c, 'run-follow-up') }),
    );
    c.followUp.runs = leadership;
    await (
      await leadership.tryLead()
    )?.caughtUp;
    return { stop: () => leadership.stop() };
  },

  /**
   * Picks up what the last process left: its runs, then its workflows, whose agents' runs were resumed
   * like any run. On stop the runs' leases are given back first, so another replica takes them over at
   * its next sweep, before the workflow follow-up finishes what it is doing.
   */
  async resume(c) {
    if (c.resume) await c.registry.resumeUnfinished();
    c.registry.startRecovery();
    if (c.resume) {
      c.followUp.workflows = new ProcessorLeadership(c.leases, WORKFLOW_FOLLOW_UP, () =>
        startProcessor(c.ports.store, c.ports.store.checkpoints, workflowFollowUp(c.ports, c.registry), {
          onError: onError(c, 'workflow-follow-up'),
        }),
      );
      await c.followUp.workflows.tryLead();
    }
    return {
      async stop() {
        await c.registry.close();
        await c.followUp.workflows?.stop();
      },
    };
  },

  'takeover-sweep'(c) {
    // One process is the whole replica set in process (nothing to take over), and a start that does not resume takes over nothing.
    if (!c.resume || c.leases.leases.kind === 'in-process') return undefined;
    const sweeper = setInterval(() => void sweep(c), sweepEveryMs(c.leases.leases.ttlMs));
    sweeper.unref();
    return { stop: () => clearInterval(sweeper) };
  },
};

async function sweep(c: Conversation): Promise<void> {
  for (const [what, step] of [
    ['run-follow-up', () => c.followUp.runs?.tryLead()],
    ['workflow-follow-up', () => c.followUp.workflows?.tryLead()],
    ['runs', () => c.registry.takeOver()],
  ] as const) {
    try {
      await step();
    } catch (error) {
      c.ports.logger.warn({ sweep: what, err: toErrorReply(error).message }, 'takeover sweep failed; trying again');
    }
  }
}
