import { RunInput } from './inputs';
import { DEFAULT_RUN_LIMITS } from './limits';
import { ModelCallPlan, nextStep } from './next-step';
import { RunState } from './state';
import { MACRO, call, given, micro, reply, requested, toolAnswers } from './given.testing';

const planOf = (g: { state: RunState }): ModelCallPlan => {
  const step = nextStep(g.state);
  if (step.kind !== 'call_model') throw new Error(`the run waits for ${step.kind}`);
  return step.plan;
};
const outcomeOf = (g: { state: RunState }) => planOf(g).assemble.variables.last_step_outcome;
const withLimits = (input: RunInput, maxDelegationDepth: number): RunInput =>
  ({ ...input, limits: { ...DEFAULT_RUN_LIMITS, maxDelegationDepth } }) as RunInput;

describe('promptVariables: {{last_step_outcome}} with reasoning off', () => {
  const plain = given().after(requested('agent', false));

  it('says no step has finished before any has', () => {
    expect(outcomeOf(plain)).toBe('No step has finished yet.');
  });

  it('after a tool round: the latest tool results', () => {
    const followUp = plain.after(
      reply('Reading both.', [call('read_file'), call('run_command', { command: 'npm test' })]),
      toolAnswers(),
      toolAnswers('exit 1', false),
    );
    expect(planOf(followUp).policy.stage).toBe('tool_followup');
    expect(outcomeOf(followUp)).toBe('Latest tool results: read_file ok; run_command failed\nLatest reply: Reading both.');
  });

  it('after a delivery check that found work missing: its verdict and what it said', () => {
    const gate = plain.after(reply('I changed src/a.ts.'));
    expect(planOf(gate).policy.stage).toBe('delivery_check');
    expect(outcomeOf(gate)).toBe('Latest reply: I changed src/a.ts.');
    const back = gate.after(reply('Delivery: NEEDS_WORK\n- the tests were not run'));
    expect(planOf(back).policy.stage).toBe('act');
    expect(outcomeOf(back)).toBe(
      'Latest reply: Delivery: NEEDS_WORK - the tests were not run\nDelivery: NEEDS_WORK after 1 delivery check(s)',
    );
  });

  it('quotes at most 600 characters of the latest reply', () => {
    const gate = plain.after(reply(`Done. ${'x'.repeat(2000)}`));
    expect(outcomeOf(gate)).toHaveLength('Latest reply: '.length + 600 + 1);
  });

  it('with reasoning on, stays the reasoning block', () => {
    const acting = given().after(
      requested('agent', true),
      reply(`${MACRO}\nPlan.`),
      reply(`${micro()}\nReading.`, [call('read_file')]),
      toolAnswers(),
    );
    expect(outcomeOf(acting)).toMatch(/^Plan delta: .*\nNext action: /);
  });
});

describe('promptRequest: the run delegation depth limit', () => {
  it('is sent with every request of a run that recorded its limits, and not for an older one that did not', () => {
    expect(planOf(given().after(withLimits(requested('agent', false), 2))).assemble.maxDelegationDepth).toBe(2);
    expect(planOf(given().after(requested('agent', false))).assemble).not.toHaveProperty('maxDelegationDepth');
  });
});
