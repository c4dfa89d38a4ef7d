import { PromptAssembleRequest, toErrorReply } from '@stagecraft/contracts';
import type { DriverPorts } from './driver-ports';

/**
 * The warmup's assemble request with the project map (docs/decisions/0022): the shell asks the tool
 * service's `index.map` and the `project-map` contributor renders it, so the decider stays pure and
 * the assembled prompt, stored with the request, records what was shown. Any other stage's request is
 * returned as it is; a map that cannot be had only leaves the section out.
 */
export async function withProjectMap(
  ports: Pick<DriverPorts, 'requester' | 'logger'>,
  assemble: PromptAssembleRequest,
  run: { runId: string; projectRoot: string },
): Promise<PromptAssembleRequest> {
  if (assemble.policy.stage !== 'warmup' || assemble.policy.userMode !== 'agent' || assemble.policy.delegation.depth > 0) return assemble;
  try {
    const { map } = await ports.requester.request(
      'index.map',
      { runId: run.runId, projectRoot: run.projectRoot },
      { correlationId: run.runId },
    );
    return map.trim().length > 0 ? { ...assemble, projectMap: map.slice(0, 4000) } : assemble;
  } catch (error) {
    ports.logger.warn({ runId: run.runId, err: toErrorReply(error).message }, 'project map for warmup failed; warming up without it');
    return assemble;
  }
}
