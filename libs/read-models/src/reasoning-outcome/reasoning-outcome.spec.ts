import { Log, fold, foldThroughCheckpoint, outcome, runStarted, stageEntered } from '../log.testing';
import { reasoningOfConversation, reasoningOfRun, reasoningOutcomeModel } from './reasoning-outcome';

const WARMUP = 'r1/main/001/2026-11-01T10:00:00Z';
const ACT = 'r1/main/002/2026-11-01T10:00:05Z';
const recorded = (requestId: string, next: string) => ({
  requestId,
  format: 'micro' as const,
  text: '<ide_reasoning>…',
  outcome: outcome(next),
});

describe('the reasoning outcome view', () => {
  it('given a run that reasoned in two stages, then it keeps every outcome with the stage and context id it was recorded in', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('StageEntered', stageEntered('warmup', WARMUP));
    const first = r1('ReasoningRecorded', recorded('r1.m1', 'read the README'));
    r1('StageEntered', stageEntered('act', ACT));
    const second = r1('ReasoningRecorded', recorded('r1.m2', 'answer'));

    const view = fold(reasoningOutcomeModel, log.events);

    expect(reasoningOfRun(view, 'r1')).toEqual({
      runId: 'r1',
      outcome: outcome('answer'),
      history: [
        { requestId: 'r1.m1', stage: 'warmup', contextId: WARMUP, position: String(first.position), outcome: outcome('read the README') },
        { requestId: 'r1.m2', stage: 'act', contextId: ACT, position: String(second.position), outcome: outcome('answer') },
      ],
    });
  });

  it("given two runs of one conversation, then the conversation's outcome is the one recorded last, whichever run recorded it", () => {
    const log = new Log();
    const [a, b] = [log.run('ra', 'conv'), log.run('rb', 'conv')];
    a('RunStarted', runStarted('ra', 'conv'));
    b('RunStarted', runStarted('rb', 'conv'));
    b('ReasoningRecorded', recorded('rb.m1', 'from b'));
    const last = a('ReasoningRecorded', recorded('ra.m1', 'from a'));

    const view = fold(reasoningOutcomeModel, log.events);

    expect(view.conversations['conv']).toEqual({ runId: 'ra', outcome: outcome('from a'), position: String(last.position) });
    expect(reasoningOfConversation(view, 'conv')).toMatchObject({
      runId: 'ra',
      outcome: outcome('from a'),
      history: [{ requestId: 'ra.m1' }],
    });
  });

  it('given nothing recorded, then a run and a conversation have no outcome', () => {
    const log = new Log();
    log.run('r1')('RunStarted', runStarted('r1'));
    const view = fold(reasoningOutcomeModel, log.events);
    expect(reasoningOfRun(view, 'r1')).toEqual({ runId: null, outcome: null, history: [] });
    expect(reasoningOfRun(view, 'elsewhere')).toEqual({ runId: null, outcome: null, history: [] });
    expect(reasoningOfConversation(view, 'c1')).toEqual({ runId: null, outcome: null, history: [] });
  });

  it('given a log that does not show the run start, then the run and conversation come from the metadata', () => {
    const log = new Log();
    log.run('r1', 'c9')('ReasoningRecorded', recorded('r1.m1', 'go'), undefined, WARMUP);
    const view = fold(reasoningOutcomeModel, log.events);
    expect(reasoningOfConversation(view, 'c9')).toMatchObject({ runId: 'r1', history: [{ stage: null, contextId: WARMUP }] });
  });

  it('given run events on other streams, then they are not read', () => {
    const log = new Log();
    log.append('conversation-c1', 'MessageAppended', {
      messageId: 'm1',
      role: 'user',
      content: 'hi',
      instructions: [],
      intermediate: false,
      kind: 'user_input',
    });
    log.append('toolcall-x', 'ReasoningRecorded', recorded('x', 'never'), { runId: 'r1', conversationId: 'c1' });
    expect(fold(reasoningOutcomeModel, log.events)).toEqual({ runs: {}, conversations: {} });
  });

  it('never changes an entry it handed out, and gives the same view resumed from a checkpoint', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('ReasoningRecorded', recorded('r1.m1', 'one'));
    const view = fold(reasoningOutcomeModel, log.events);
    const handedOut = reasoningOfRun(view, 'r1');
    const copy = structuredClone(handedOut);
    r1('StageEntered', stageEntered('act', ACT));
    r1('ReasoningRecorded', recorded('r1.m2', 'two'));
    fold(reasoningOutcomeModel, log.events.slice(2), view);
    expect(handedOut).toEqual(copy);
    expect(reasoningOfRun(view, 'r1').history).toHaveLength(2);
    expect(JSON.stringify(foldThroughCheckpoint(reasoningOutcomeModel, log.events))).toBe(
      JSON.stringify(fold(reasoningOutcomeModel, log.events)),
    );
  });

  it('keeps runs whose ids are names of Object properties as runs like any other', () => {
    const log = new Log();
    const run = log.run('constructor', 'toString');
    run('ReasoningRecorded', recorded('m1', 'go'));
    const view = fold(reasoningOutcomeModel, log.events);
    expect(reasoningOfRun(view, 'constructor').outcome).toEqual(outcome('go'));
    expect(reasoningOfConversation(view, 'toString').runId).toBe('constructor');
    expect(reasoningOfRun(view, 'hasOwnProperty')).toEqual({ runId: null, outcome: null, history: [] });
  });
});
