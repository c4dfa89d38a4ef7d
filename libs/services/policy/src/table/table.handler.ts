import { PolicyTableReply, PolicyTableRequest, Stage } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';

/** `policy.table`: the same decision for every stage at once, so a run can ask once instead of once per stage. */
export const table = (request: PolicyTableRequest): PolicyTableReply => ({
  policies: Stage.options.map((stage) => decideStagePolicy({ ...request, stage })),
});
