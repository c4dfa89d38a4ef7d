import { MessageBus, createInprocBus } from '@stagecraft/messaging';
import { followLiveText, followVisibleText, statusLine, visibleText } from './live-text';

/** Every prefix of a streamed answer, as a view sees it grow one piece at a time. */
const prefixes = (text: string) => Array.from({ length: text.length + 1 }, (_, n) => text.slice(0, n));

describe('visibleText', () => {
  it('leaves out whole reasoning blocks and keeps the text around them', () => {
    expect(visibleText('<ide_reasoning>\n## Plan\nread it\n</ide_reasoning>\nI will read the README.')).toBe('\nI will read the README.');
    expect(visibleText('Before. <ide_reasoning>- Next action: x</ide_reasoning> After.')).toBe('Before.  After.');
  });

  it('shows nothing of a block that is still streaming, nor of a tag cut in half', () => {
    expect(visibleText('Looking. <ide_reasoning>- Plan delta: read')).toBe('Looking. ');
    expect(visibleText('Looking. <ide_reas')).toBe('Looking. ');
    expect(visibleText('a < b')).toBe('a < b');
  });

  it('only ever grows as the answer grows, so a view can print what is new', () => {
    const answer = 'Hi <ide_reasoning>\n- Plan delta: x\n- Delivery: DONE\n</ideX</ide_reasoning> done <i>ok</i> <ide_reasoning>more';
    const seen = prefixes(answer).map(visibleText);
    for (let i = 1; i < seen.length; i++) expect(seen[i].startsWith(seen[i - 1])).toBe(true);
    expect(seen.at(-1)).toBe('Hi  done <i>ok</i> ');
    expect(seen.some((s) => s.includes('Plan delta') || s.includes('ide_reasoning'))).toBe(false);
  });
});

describe('statusLine', () => {
  it('shows a spinner, the stage and the end of the text, within the width', () => {
    const line = statusLine({ stage: 'act', visible: 'I will   read\nthe README and then write the notes file.', frame: 0, width: 40 });
    expect(line.startsWith('⠋ act · …')).toBe(true);
    expect(line.endsWith('notes file.')).toBe(true);
    expect(line.length).toBeLessThanOrEqual(40);
    expect(line).not.toContain('\n');
  });

  it('names the stage alone while only reasoning has streamed, and turns the spinner', () => {
    expect(statusLine({ stage: 'warmup', visible: visibleText('<ide_reasoning>## Analyze'), frame: 1, width: 80 })).toBe('⠙ warmup');
    expect(statusLine({ stage: null, visible: '', frame: 10, width: 80 })).toBe('⠋ starting');
  });
});

describe('the answer streaming into the scrollback', () => {
  const prefix = 'live';
  const runId = 'run-1';
  const subject = `${prefix}.run.${runId}.stream`;
  let bus: MessageBus;
  beforeEach(() => (bus = createInprocBus()));
  afterEach(() => bus.close());

  const send = async (requestId: string, stage: string, pieces: string[]) => {
    for (const text of pieces) bus.publish(subject, JSON.stringify({ runId, requestId, stage, text }));
    await bus.flush();
  };

  it('writes each new piece of visible text, never the reasoning block, with a line naming each new stage', async () => {
    const written: string[] = [];
    const live = followLiveText(bus, prefix, runId, { write: (t) => written.push(t), columns: 80 }, { dim: (t) => `<dim>${t}</dim>` });
    await send('r.m1', 'act', ['<ide_', 'reasoning>secret plan</ide_reasoning>', '\nHello', ' world']);
    live.clear();
    await send('r.m2', 'delivery_check', ['Done.\n']);
    await send('r.m3', 'qa_review', ['{"verdict":"PASS"}']);
    live.stop();
    const out = written.filter((t) => !t.startsWith('\r')).join('');
    expect(out).toBe('<dim>── act ──</dim>\nHello world\n<dim>── delivery_check ──</dim>\nDone.\n');
    expect(written.join('')).not.toContain('secret plan');
    expect(live.streamed('Hello world')).toBe(true);
    expect(live.streamed('Something else')).toBe(false);
  });

  it('gives each visible piece once, with its stage and request, as the JSON stream prints them', async () => {
    const deltas: unknown[] = [];
    const stop = followVisibleText(bus, prefix, runId, (d) => deltas.push(d));
    await send('r.m1', 'act', ['<ide_reasoning>x</ide_reasoning>', '\nThe answer', '.']);
    stop();
    await send('r.m1', 'act', [' late']);
    expect(deltas).toEqual([
      { text: '\nThe answer', stage: 'act', requestId: 'r.m1' },
      { text: '.', stage: 'act', requestId: 'r.m1' },
    ]);
  });
});
