import { Stage } from '@stagecraft/contracts';
import { decide } from './decide.handler';

describe('policy.decide', () => {
  it('answers the policy of the stage asked for', () => {
    for (const stage of Stage.options) {
      const { policy } = decide({ stage, userMode: 'agent', reasoningEnabled: true, delegation: { depth: 0, chain: [] } });
      expect(policy.stage).toBe(stage);
    }
  });
});
