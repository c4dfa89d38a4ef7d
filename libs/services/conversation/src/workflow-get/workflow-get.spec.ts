import { StagecraftError, WorkflowStartRequest } from '@stagecraft/contracts';
import { EventStore, createMemoryEventStore } from '@stagecraft/event-store';
import type { ParsedWorkflowStart } from '@stagecraft/workflows';
import { WorkflowLog } from '../workflow/workflow-log';
import { workflowGet } from './workflow-get.handler';

const clock = () => new Date('2026-01-01T00:00:00.000Z');

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => (error instanceof StagecraftError ? error.code : String(error)),
  );

describe('workflow.get', () => {
  let store: EventStore;
  let ids = 0;
  const portsFor = (projectRoots?: string[]) => ({ store, clock, newId: () => `id-${++ids}`, projectRoots });

  /** A workflow requested in `projectRoot`, decided and stored as `workflow.start` stores it. */
  async function requestWorkflow(workflowId: string, projectRoot: string): Promise<void> {
    const log = await WorkflowLog.open(portsFor(), workflowId);
    const request = WorkflowStartRequest.parse({ workflowId, goal: 'Support YAML configs.', projectRoot }) as ParsedWorkflowStart;
    await log.decide({ type: 'WorkflowRequested', workflowId, request, projectRoot, isolation: 'copy', at: clock().toISOString() });
  }

  beforeEach(async () => {
    store = createMemoryEventStore();
    await requestWorkflow('w1', '/projects/a');
    await requestWorkflow('w2', '/elsewhere/b');
  });

  it('answers a workflow as its log tells it', async () => {
    const view = await workflowGet({ workflowId: 'w1' }, { ports: portsFor(['/projects']) });
    expect(view).toMatchObject({
      workflowId: 'w1',
      kind: 'phases',
      status: 'running',
      goal: 'Support YAML configs.',
      projectRoot: '/projects/a',
    });
  });

  it('answers a workflow of a project this deployment does not serve as one that does not exist', async () => {
    expect(await codeOf(workflowGet({ workflowId: 'w2' }, { ports: portsFor(['/projects']) }))).toBe('NOT_FOUND');
    // Without confined roots every project is served.
    expect((await workflowGet({ workflowId: 'w2' }, { ports: portsFor() })).workflowId).toBe('w2');
  });

  it('answers an unknown workflow with NOT_FOUND', async () => {
    expect(await codeOf(workflowGet({ workflowId: 'w3' }, { ports: portsFor() }))).toBe('NOT_FOUND');
  });
});
