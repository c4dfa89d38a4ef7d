import { mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventOf, StagecraftEvent, streams } from '@stagecraft/contracts';
import { RecordedRequest, ScriptedReply } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT } from '@stagecraft/testing';
import { runToEnd, startEmbedded } from '@stagecraft/testing-system';

/**
 * A model that knows nothing of Stagecraft's tags beyond what its prompt says (docs/decisions/0057): it
 * delegates only when the prompt shows how, copying the tag from the prompt, and hands back the same way.
 */
type Message = { role: string; content?: string | null };
const messagesOf = (r: RecordedRequest): Message[] => r.body?.messages ?? [];
const systemParts = (r: RecordedRequest): string[] =>
  messagesOf(r)
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content ?? ''));
const promptOf = (r: RecordedRequest): string => systemParts(r).join('\n\n');
/** The stage's part of a split request: the last system message, after the history (docs/decisions/0052). */
const stagePartOf = (r: RecordedRequest): string => (systemParts(r).length > 1 ? (systemParts(r).at(-1) ?? '') : '');
const saidInConversation = (r: RecordedRequest, text: string) =>
  messagesOf(r).some((m) => m.role !== 'system' && String(m.content ?? '').includes(text));

/** The tag syntax as the prompt shows it, or null where the prompt shows none. */
const delegateTagIn = (prompt: string): RegExpMatchArray | null => prompt.match(/<(delegate-reasoning) agent="[^"]*">[^<]*<\/\1>/);
const returnTagIn = (prompt: string): RegExpMatchArray | null => prompt.match(/<(return-control)>[^<`]*<\/\1>/);

const BRIEF = 'Read README.md and report one improvement.';
const RESULT = 'README.md has no usage section.';

function readerOfPrompts(r: RecordedRequest): ScriptedReply {
  const prompt = promptOf(r);
  switch (r.stage) {
    case 'act':
    case 'tool_followup': {
      if (prompt.includes('## Specialist brief')) {
        if (r.stage === 'act')
          return {
            content: 'Reading the README.',
            toolCalls: [{ id: 'read_readme', name: 'read_file', arguments: { path: 'README.md' } }],
          };
        const back = returnTagIn(prompt);
        return { content: back ? `<${back[1]}>${RESULT}</${back[1]}>` : RESULT };
      }
      if (saidInConversation(r, RESULT)) return { content: `Done: the reviewer found that ${RESULT}` };
      const tag = delegateTagIn(prompt);
      if (tag) return { content: `<${tag[1]} agent="reviewer">${BRIEF}</${tag[1]}>` };
      return { content: 'I reviewed README.md myself: it is fine.' };
    }
    case 'delivery_check':
      return { content: 'Delivery: DONE' };
    case 'qa_review':
      return { content: QA_PASS_REPORT };
    default:
      return { status: 500, content: `unexpected stage ${r.stage}` };
  }
}

/** One run of the prompt-reading model in its own embedded deployment, whose runs delegate at most `maxDelegationDepth` deep. */
async function runWith(maxDelegationDepth?: number) {
  const { server, host, dir, close } = await startEmbedded({
    script: readerOfPrompts,
    dirPrefix: 'stagecraft-delegation-offer-',
    ...(maxDelegationDepth === undefined ? {} : { conversation: { limits: { maxDelegationDepth } } }),
  });
  try {
    const projectRoot = join(dir, 'project');
    mkdirSync(projectRoot);
    writeFileSync(join(projectRoot, 'README.md'), '# Sample\nA tiny project.\n');
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const { end } = await runToEnd(host, { runId, message: 'Review the README', reasoningEnabled: false, projectRoot });
    const stored = (await host.ports.store!.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
    const requests = server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);
    const instructions = stored
      .filter((e): e is EventOf<'InstructionIssued'> => e.type === 'InstructionIssued')
      .map((e) => [e.data.instruction.kind, e.data.accepted]);
    return { end, requests, instructions };
  } finally {
    await close();
  }
}

describe('delegation a model can find, embedded', () => {
  it('a model that reads the prompt delegates, its specialist hands back, and the main agent answers', async () => {
    const { end, requests, instructions } = await runWith();
    expect(end).toMatchObject({ type: 'RunCompleted', data: { answer: `Done: the reviewer found that ${RESULT}`, deliveryState: 'DONE' } });
    expect(instructions).toEqual([
      ['DelegateReasoning', true],
      ['IntermediateReasoning', true],
      ['IntermediateReasoning', true],
      ['ReturnControl', true],
    ]);
    const first = requests[0];
    expect(first.stage).toBe('act');
    // Offered in the stage's part, with the run's limit; the shared head says nothing of it.
    expect(stagePartOf(first)).toContain('## Delegating to a specialist');
    expect(stagePartOf(first)).toContain('delegation depth 0 of at most 3');
    expect(systemParts(first)[0]).not.toContain('delegate-reasoning');
    // The specialist is told how to hand back; with reasoning off its follow-up still learns where things stand.
    const specialistFollowUp = requests.find((r) => r.stage === 'tool_followup' && promptOf(r).includes('## Specialist brief'));
    expect(stagePartOf(specialistFollowUp!)).toContain('<return-control>your result</return-control>');
    expect(stagePartOf(specialistFollowUp!)).toContain('Latest tool results: read_file ok');
    expect(stagePartOf(specialistFollowUp!)).not.toContain('No step has finished yet');
  });

  it('at the depth limit the specialist is not offered delegation', async () => {
    const { end, requests, instructions } = await runWith(1);
    expect(end).toMatchObject({ type: 'RunCompleted' });
    expect(instructions[0]).toEqual(['DelegateReasoning', true]);
    expect(promptOf(requests[0])).toContain('delegation depth 0 of at most 1');
    const specialist = requests.filter((r) => promptOf(r).includes('## Specialist brief'));
    expect(specialist.length).toBe(2);
    for (const r of specialist) expect(promptOf(r)).not.toContain('## Delegating to a specialist');
  });

  it('with a depth limit of 0 no prompt offers delegation, and the model works alone', async () => {
    const { end, requests, instructions } = await runWith(0);
    expect(end).toMatchObject({ type: 'RunCompleted', data: { answer: 'I reviewed README.md myself: it is fine.' } });
    expect(instructions).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(promptOf(r)).not.toContain('delegate-reasoning');
  });
});
