import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { PolicyDecideReply, PolicyDecideRequest, PolicyTableReply, PolicyTableRequest, Stage } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { Handles } from '@stagecraft/service-shell';

@Controller()
export class PolicyController {
  @Handles('policy.decide')
  decide(@Payload() request: PolicyDecideRequest): PolicyDecideReply {
    return { policy: decideStagePolicy(request) };
  }

  /** The same decision for every stage at once, so a run can ask once instead of once per stage. */
  @Handles('policy.table')
  table(@Payload() request: PolicyTableRequest): PolicyTableReply {
    return { policies: Stage.options.map((stage) => decideStagePolicy({ ...request, stage })) };
  }
}
