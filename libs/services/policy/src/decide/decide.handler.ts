import type { PolicyDecideReply, PolicyDecideRequest } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';

/** `policy.decide`: what one stage may do for this mode, reasoning switch and delegation. */
export const decide = (request: PolicyDecideRequest): PolicyDecideReply => ({ policy: decideStagePolicy(request) });
