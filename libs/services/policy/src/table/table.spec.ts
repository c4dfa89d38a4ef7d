import { Stage } from '@stagecraft/contracts';
import { decide } from '../decide/decide.handler';
import { table } from './table.handler';

describe('policy.table', () => {
  it('holds, stage by stage in order, what policy.decide answers', () => {
    const request = { userMode: 'agent' as const, reasoningEnabled: false, delegation: { depth: 1, chain: ['reviewer'] } };
    const { policies } = table(request);
    expect(policies.map((p) => p.stage)).toEqual(Stage.options);
    expect(policies).toEqual(Stage.options.map((stage) => decide({ ...request, stage }).policy));
  });
});
