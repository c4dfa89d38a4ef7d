import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { PolicyDecideReply, PolicyDecideRequest } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { Handles } from '@stagecraft/service-shell';

@Controller()
export class PolicyController {
  @Handles('policy.decide')
  decide(@Payload() request: PolicyDecideRequest): PolicyDecideReply {
    return { policy: decideStagePolicy(request) };
  }
}
