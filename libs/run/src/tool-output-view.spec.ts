import fc from 'fast-check';
import { EventData } from '@stagecraft/contracts';
import { foldRun } from './evolve';
import { AT, MACRO, call, given, like, micro, reply, requested, runSpec, toolAnswers } from './given.testing';
import { replayRun } from './replay';
import { DEFAULT_RUN_LIMITS } from './limits';
import { auditRun } from './audit';
import { RunInput } from './inputs';
import { pending } from './pending-event';
import { clipToolOutput, handleOf, roundBudgetChars, shareOfRound } from './tool-output-view';

/** A numbered text of `lines` lines, each about `width` characters. */
const text = (lines: number, width = 60) => Array.from({ length: lines }, (_, i) => `line ${i + 1} `.padEnd(width, 'x')).join('\n');

describe('clipToolOutput: head, tail and a handle', () => {
  const file = { kind: 'file', path: 'src/big.ts', firstLine: 1 } as const;

  it('shows an output that fits as it is', () => {
    expect(clipToolOutput('short', 10, file)).toBe('short');
  });

  it('keeps whole lines of the head and the tail within the share, and names the left-out lines of the file', () => {
    const output = text(1000);
    const view = clipToolOutput(output, 4000, file);
    expect(view.length).toBeLessThanOrEqual(4000);
    const lines = view.split('\n');
    expect(lines[0]).toBe(output.split('\n')[0]);
    expect(lines.at(-1)).toBe(output.split('\n').at(-1));
    const note = lines.find((l) => l.startsWith('['));
    const [, first, last] = /read_file \{"path":"src\/big\.ts","startLine":(\d+),"endLine":(\d+)\}\]$/.exec(note ?? '') ?? [];
    // Every line of the output is shown or named by the note, once.
    const shown = lines.filter((l) => l !== note).map((l) => Number(/^line (\d+)/.exec(l)?.[1]));
    expect([...shown.slice(0, Number(first) - 1), ...range(Number(first), Number(last)), ...shown.slice(Number(first) - 1)]).toEqual(
      range(1, 1000),
    );
    // About two thirds head, one third tail.
    expect(Number(first) - 1).toBeGreaterThan(1000 - Number(last));
  });

  it('counts file lines from where the read started, and gives any other tool a read_tool_output handle', () => {
    const output = text(500);
    const fromLine = clipToolOutput(
      output,
      3000,
      handleOf({ callId: 'r1.m2.c', tool: 'read_file', arguments: { path: 'a.ts', startLine: 101 } }),
    );
    const head = fromLine.split('\n').findIndex((l) => l.startsWith('['));
    expect(fromLine).toContain(`"startLine":${100 + head + 1}`);
    const failedRead = clipToolOutput(output, 3000, handleOf({ callId: 'r1.m2.c', tool: 'read_file', arguments: { path: 'a.ts' } }, false));
    expect(failedRead).toContain('read_tool_output {"callId":"r1.m2.c"');
    const command = clipToolOutput(output, 3000, handleOf({ callId: 'r1.m2.c', tool: 'run_command', arguments: { command: 'ls' } }));
    expect(command).toMatch(/read_tool_output \{"callId":"r1\.m2\.c","startLine":\d+,"endLine":\d+\}\]/);
  });

  it('cuts a single line too long for the share to the note alone, and is the same each time', () => {
    const view = clipToolOutput('y'.repeat(50_000), 1000, file);
    expect(view).toMatch(/^\[1 of 1 lines \(50000 characters\) left out/);
    expect(clipToolOutput('y'.repeat(50_000), 1000, file)).toBe(view);
  });

  it('shares a round: what is left, evenly between the result and the calls still open', () => {
    const budget = roundBudgetChars(32_000);
    expect(budget).toBe(32_000);
    expect(shareOfRound(budget, 0, 3)).toBe(10_666);
    expect(shareOfRound(budget, 100, 2)).toBe(15_950);
    expect(shareOfRound(budget, 40_000, 1)).toBe(0);
  });
});

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('decide: tool results within the round budget of a run that recorded its window', () => {
  const windowed = given()
    .after({ ...(requested() as Extract<RunInput, { type: 'RunRequested' }>), limits: { ...DEFAULT_RUN_LIMITS, contextWindow: 32_000 } })
    .after(reply(`${MACRO}\nI will read the three files.`));
  const round = windowed.after(
    reply(`${micro()}\nReading.`, [
      call('read_file', { path: 'a.txt' }, 'c1'),
      call('read_file', { path: 'b.txt' }, 'c2'),
      call('run_command', { command: 'ls' }, 'c3'),
    ]),
  );
  const big = text(5000);

  it('stores a result that fits once: the message refers to ToolCallCompleted, and the fold shows the output', () => {
    const before = round.state;
    const messages = before.status === 'running' ? before.messageCount : 0;
    const result = { callId: 'r1.m2.c1', tool: 'read_file' as const, ok: true, output: 'small output', truncated: false, durationMs: 1 };
    const decided = runSpec(round)
      .when({ type: 'ToolAnswered', callId: 'r1.m2.c1', result: { ...result, replayed: false }, at: AT })
      .then([
        pending('ToolCallCompleted', result),
        pending('MessageAppended', {
          messageId: `r1.msg${messages + 1}`,
          role: 'tool',
          content: '',
          instructions: [],
          intermediate: false,
          kind: 'tool_result',
          stage: 'act',
          toolCallId: 'c1',
          outputOf: 'r1.m2.c1',
        }),
      ]);
    const state = foldRun([...round.events, ...decided]);
    expect(state.status === 'running' && state.history.at(-1)?.message).toEqual({
      role: 'tool',
      content: 'small output',
      toolCallId: 'c1',
    });
  });

  it('shows the results of one round within a quarter of the window, each whole in the log', () => {
    const after = round.after(toolAnswers(big), toolAnswers(big), toolAnswers(big));
    const completed = after.events.filter((e) => e.type === 'ToolCallCompleted');
    expect(completed.map((e) => (e.data as EventData<'ToolCallCompleted'>).output)).toEqual([big, big, big]);
    const results = after.events
      .filter((e) => e.type === 'MessageAppended' && e.data.kind === 'tool_result')
      .map((e) => e.data as EventData<'MessageAppended'>);
    expect(results.map((m) => m.outputOf)).toEqual([undefined, undefined, undefined]);
    expect(results.reduce((sum, m) => sum + m.content.length, 0)).toBeLessThanOrEqual(roundBudgetChars(32_000));
    expect(results[0].content).toContain('read_file {"path":"a.txt"');
    expect(results[2].content).toContain('read_tool_output {"callId":"r1.m2.c3"');
    // The next request shows what was decided, byte for byte.
    const state = foldRun(after.events);
    const shown = state.status === 'running' ? state.history.filter((m) => m.kind === 'tool_result').map((m) => m.message.content) : [];
    expect(shown).toEqual(results.map((m) => m.content));
  });

  it('replays a log with outputs by reference exactly, and audits each output as the model was sent it', () => {
    // An output quoting the run's own reasoning: held by reference, still caught.
    const log = round.after(
      toolAnswers(`notes.md:\n${micro()}`),
      toolAnswers(big),
      toolAnswers('ok'),
      reply(`${micro({ delivery: 'DONE' })}\nDone.`),
    ).events;
    expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true, events: log.length });
    const quoted = log.findIndex((e) => e.type === 'MessageAppended' && e.data.outputOf === 'r1.m2.c1');
    expect(quoted).toBeGreaterThan(0);
    expect(auditRun(log).filter((f) => f.invariant === 'no-reasoning-reentry')).toEqual([
      {
        index: quoted,
        type: 'MessageAppended',
        invariant: 'no-reasoning-reentry',
        message: 'a tool_result message quotes a recorded reasoning block',
      },
    ]);
  });

  it('repeats the output in a run that recorded no window, as older runs did', () => {
    given()
      .after(requested(), reply(`${MACRO}\nReading.`), reply(`${micro()}\nReading.`, [call('read_file')]))
      .when(toolAnswers(big))
      .then(like('ToolCallCompleted', { output: big }), like('MessageAppended', { content: big }), like('StageEntered'));
  });
});

describe('tool results of random rounds', () => {
  it('show each result within its share of the round budget (or its note alone), and replay identically', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1024, max: 64_000 }),
        fc.array(fc.record({ lines: fc.integer({ min: 0, max: 3000 }), width: fc.integer({ min: 1, max: 300 }), file: fc.boolean() }), {
          minLength: 1,
          maxLength: 5,
        }),
        (contextWindow, results) => {
          const start = {
            ...(requested() as Extract<RunInput, { type: 'RunRequested' }>),
            limits: { ...DEFAULT_RUN_LIMITS, contextWindow },
          };
          const calls = results.map((r, i) =>
            r.file ? call('read_file', { path: `f${i}.txt` }, `c${i}`) : call('run_command', { command: 'ls' }, `c${i}`),
          );
          const outputs = results.map((r) => text(r.lines, r.width));
          const log = given()
            .after(start, reply(`${MACRO}\nReading.`), reply(`${micro()}\nReading.`, calls))
            .after(...outputs.map((output) => toolAnswers(output))).events;
          const shown = log.flatMap((e) => (e.type === 'MessageAppended' && e.data.kind === 'tool_result' ? [e.data] : []));
          const state = foldRun(log);
          const sent =
            state.status === 'running' ? state.history.filter((m) => m.kind === 'tool_result').map((m) => m.message.content) : [];
          expect(sent).toHaveLength(outputs.length);
          const budget = roundBudgetChars(contextWindow);
          let used = 0;
          sent.forEach((content, i) => {
            const share = shareOfRound(budget, used, outputs.length - i);
            const handle = handleOf({ callId: `r1.m2.c${i}`, tool: calls[i].name, arguments: JSON.parse(calls[i].arguments) });
            expect(content.length).toBeLessThanOrEqual(Math.max(share, clipToolOutput(outputs[i], 0, handle).length));
            // Whole: by reference, the fold shows the output; clipped: the view as stored.
            expect(shown[i].outputOf === undefined ? shown[i].content : outputs[i]).toBe(content);
            if (content !== outputs[i]) expect(content).toContain('left out here');
            used += content.length;
          });
          expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true, events: log.length });
        },
      ),
      { numRuns: 60 },
    );
  });
});
