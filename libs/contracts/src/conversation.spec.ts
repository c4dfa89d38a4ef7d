import { ConversationSendRequest, RUN_LIMIT_RANGES } from './conversation';

const send = (limits: unknown) =>
  ConversationSendRequest.safeParse({ message: 'hi', userMode: 'agent', reasoningEnabled: true, projectRoot: '/p', limits });

describe('conversation.send limits', () => {
  it('are optional, and each bound may be left out', () => {
    expect(send(undefined).success).toBe(true);
    expect(send({}).data?.limits).toEqual({});
    expect(send({ maxToolIterations: 2 }).data?.limits).toEqual({ maxToolIterations: 2 });
  });

  it('accept both ends of each range', () => {
    const { maxToolIterations: rounds, maxDeliveryChecks: checks } = RUN_LIMIT_RANGES;
    expect(send({ maxToolIterations: rounds.min, maxDeliveryChecks: checks.min }).success).toBe(true);
    expect(send({ maxToolIterations: rounds.max, maxDeliveryChecks: checks.max }).data?.limits).toEqual({
      maxToolIterations: 200,
      maxDeliveryChecks: 20,
    });
  });

  it.each([
    [{ maxToolIterations: 0 }, 'maxToolIterations'],
    [{ maxToolIterations: 201 }, 'maxToolIterations'],
    [{ maxToolIterations: 2.5 }, 'maxToolIterations'],
    [{ maxToolIterations: '3' }, 'maxToolIterations'],
    [{ maxDeliveryChecks: 0 }, 'maxDeliveryChecks'],
    [{ maxDeliveryChecks: 21 }, 'maxDeliveryChecks'],
    [{ maxDelegationDepth: 9 }, ''],
  ])('refuse %j, naming the bound', (limits, bound) => {
    const parsed = send(limits);
    expect(parsed.success).toBe(false);
    const paths = parsed.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual([bound ? `limits.${bound}` : 'limits']);
  });
});
