import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { ErrorReply, PreviousAttempt, ReplyEnvelope, TEMPLATE_SCHEMA_VERSION, UpstreamContext } from '@stagecraft/contracts';
import { Host, startHost } from '@stagecraft/service-shell';
import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { modelFreeServices } from '@stagecraft/testing-system';
import { promptAssemblyService } from './index';

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };
const TRANSPORTS = ['inproc', 'nats'] as const;
type Transport = (typeof TRANSPORTS)[number];

let nats: NatsServerHandle;
const hosts = {} as Record<Transport, Host>;

beforeAll(async () => {
  nats = await startNatsServer();
  for (const transport of TRANSPORTS) {
    hosts[transport] = await startHost({
      definitions: [modelFreeServices.policy, promptAssemblyService],
      transport,
      natsUrl: nats.url,
      store: 'memory:',
      config,
    });
  }
});
afterAll(async () => {
  for (const host of Object.values(hosts)) await host.close();
  await nats?.stop();
});

const brief = 'You are a test failure analyst. Find why the parser tests fail and report file paths and line numbers.';
const upstream: UpstreamContext[] = [
  {
    kind: 'delegation',
    template: {
      schemaVersion: TEMPLATE_SCHEMA_VERSION,
      resultId: 'wf-1/main/002/2026-01-19T10:32:00Z',
      upstreamContextId: 'wf-1/main/001/2026-01-19T10:31:00Z',
      goal: 'Make the config parser accept YAML.',
      delegationRationale: 'The failing tests can be analysed while the parser is changed.',
      assignments: [{ agentId: 'a-1', agentType: 'test-analyst', assignedGoal: 'Find the failing parser tests.', contextToPass: {} }],
      contextSelections: [],
      metadata: {},
    },
  },
];
const previousAttempt: PreviousAttempt = {
  previousContextId: 'wf-1/test-analyst/001/2026-01-19T10:33:00Z',
  attemptNumber: 1,
  previousAttemptAt: '2026-01-19T10:33:00Z',
  serializedOutput: 'Looked at src/load.ts only.',
  error: { message: 'ran out of steps before reading the tests' },
  priorContexts: [],
};

/** One conversation's worth of requests, in order; the replies are what both transports must agree on. */
async function replies(host: Host) {
  const { requester } = host.ports;
  const decided = await requester.request('policy.decide', {
    userMode: 'agent',
    reasoningEnabled: true,
    stage: 'act',
    delegation: { depth: 1, chain: ['test-analyst'] },
  });
  const assembled = await requester.request('prompt.assemble', {
    policy: decided.policy,
    variables: { project_root: '/work/project', user_input: 'Support YAML configs.' },
    instructions: [{ kind: 'DelegateReasoning', agentType: 'test-analyst', agentPrompt: brief }, { kind: 'IntermediateReasoning' }],
    agentType: 'test-analyst',
    upstream,
    previousAttempt,
  });
  const steps = [];
  const completedSteps: string[] = [];
  for (;;) {
    const next = await requester.request('workflow.next', { workflowId: 'code-review', completedSteps });
    steps.push(next);
    if (next.isComplete || next.step === null) break;
    completedSteps.push(next.step.id);
  }
  return { decided, assembled, steps };
}

const SUBJECTS = ['policy.decide', 'prompt.assemble', 'workflow.next'] as const;
const BAD_BODIES: Array<[string, string]> = [
  ['malformed JSON', '{"userMode": "agent",'],
  ['a JSON array', '[]'],
  ['an empty object', '{}'],
  [
    'wrong types',
    JSON.stringify({
      userMode: 'turbo',
      reasoningEnabled: 'yes',
      stage: 7,
      policy: 'none',
      variables: [],
      workflowId: 42,
      completedSteps: 'all',
    }),
  ],
];

async function rawReply(host: Host, subject: string, body: string): Promise<ReplyEnvelope<unknown>> {
  const reply = await host.ports.bus.request(`stagecraft.${subject}`, body, { timeoutMs: 5000 });
  return JSON.parse(reply.body) as ReplyEnvelope<unknown>;
}

describe('policy and prompt-assembly services on both transports', () => {
  it('give identical replies to policy.decide, prompt.assemble (hash included) and workflow.next', async () => {
    const inproc = await replies(hosts.inproc);
    const overNats = await replies(hosts.nats);
    expect(overNats).toEqual(inproc);

    const { assembled, steps } = inproc;
    expect(assembled.hash).toBe(createHash('sha256').update(assembled.system).digest('hex'));
    expect(assembled.promptIds).toEqual(
      expect.arrayContaining(['contributor:delegation-brief', 'contributor:upstream-context', 'contributor:previous-attempt']),
    );
    expect(assembled.system).toContain(
      `<delegate-reasoning>Specialist active (${brief.length} chars)</delegate-reasoning>\n<intermediate>Internal reasoning</intermediate>\n`,
    );
    expect(assembled.system).toContain('Your assignment: Find the failing parser tests.');
    expect(assembled.system).toContain('This is attempt 2.');
    expect(steps.map((s) => s.step?.id ?? null)).toEqual([
      'review-scope',
      'understand-change',
      'correctness-and-tests',
      'design-and-maintainability',
      'review-summary',
      null,
    ]);
    expect(steps.at(-1)?.isComplete).toBe(true);
  });

  it('keep the delegation brief out of the instruction line when no delegation is active', async () => {
    for (const transport of TRANSPORTS) {
      const { policy } = await hosts[transport].ports.requester.request('policy.decide', {
        userMode: 'agent',
        reasoningEnabled: false,
        stage: 'act',
      });
      const { system } = await hosts[transport].ports.requester.request('prompt.assemble', {
        policy,
        variables: { project_root: '/work/project', user_input: 'Support YAML configs.' },
        instructions: [{ kind: 'DelegateReasoning', agentPrompt: brief }],
      });
      expect(system).toContain(`<delegate-reasoning>Specialist active (${brief.length} chars)</delegate-reasoning>`);
      expect(system).not.toContain('test failure analyst');
    }
  });

  it.each(SUBJECTS.flatMap((subject) => BAD_BODIES.map(([what, body]) => [subject, what, body] as const)))(
    '%s answers %s with the same VALIDATION error on both transports',
    async (subject, _what, body) => {
      const [inproc, overNats] = await Promise.all(TRANSPORTS.map((t) => rawReply(hosts[t], subject, body)));
      expect(overNats).toEqual(inproc);
      expect(inproc.ok).toBe(false);
      const error = (inproc as { error: ErrorReply }).error;
      expect(ErrorReply.parse(error)).toEqual(error);
      expect(error.code).toBe('VALIDATION');
      expect(error.message.length).toBeGreaterThan(0);
      expect(error.issues.length).toBeGreaterThan(0);
    },
  );

  it('answer an unknown workflow with NOT_FOUND and an unknown completed step with VALIDATION, on both transports', async () => {
    for (const transport of TRANSPORTS) {
      await expect(rawReply(hosts[transport], 'workflow.next', JSON.stringify({ workflowId: 'deploy' }))).resolves.toEqual({
        ok: false,
        error: {
          code: 'NOT_FOUND',
          message: 'no workflow with id "deploy"',
          issues: [{ path: ['workflowId'], message: 'unknown workflow' }],
        },
      });
      const unknownStep = await rawReply(
        hosts[transport],
        'workflow.next',
        JSON.stringify({ workflowId: 'code-review', completedSteps: ['ship-it'] }),
      );
      expect(unknownStep).toMatchObject({ ok: false, error: { code: 'VALIDATION', issues: [{ path: ['completedSteps', 0] }] } });
    }
  });
});
