import { ModelStreamDelta, publishContracts, withPrefix } from '@stagecraft/contracts';
import type { BusSubscription, MessageBus } from '@stagecraft/messaging';
import { printable } from './diff-view';

const OPEN = '<ide_reasoning>';
const CLOSE = '</ide_reasoning>';
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The part of a streamed answer a person may see: `<ide_reasoning>` blocks left out, an unfinished one
 * cut off, and a trailing piece that may be the start of one held back. Growing the input only ever
 * grows the output, so a view can print what is new.
 */
export function visibleText(raw: string): string {
  let visible = '';
  let at = 0;
  for (;;) {
    const open = raw.indexOf(OPEN, at);
    if (open < 0) break;
    visible += raw.slice(at, open);
    const close = raw.indexOf(CLOSE, open + OPEN.length);
    if (close < 0) return visible;
    at = close + CLOSE.length;
  }
  const rest = raw.slice(at);
  return visible + rest.slice(0, rest.length - partialTagLength(rest));
}

/** How many trailing characters could be the beginning of `<ide_reasoning>`. */
function partialTagLength(text: string): number {
  for (let n = Math.min(OPEN.length - 1, text.length); n > 0; n--) if (OPEN.startsWith(text.slice(-n))) return n;
  return 0;
}

/** The one status line: a spinner, the stage, and as much of the end of the visible text as fits. */
export function statusLine(view: { stage: string | null; visible: string; frame: number; width: number }): string {
  const head = `${FRAMES[view.frame % FRAMES.length]} ${view.stage ?? 'starting'}`;
  const text = view.visible.replace(/\s+/g, ' ').trim();
  const room = view.width - head.length - 3;
  if (!text || room < 8) return head.slice(0, Math.max(1, view.width - 1));
  return `${head} · ${text.length > room ? `…${text.slice(-(room - 1))}` : text}`;
}

/** One piece of a model answer a person may see, as it streamed: the new visible text, its stage and request. */
export interface VisibleDelta {
  text: string;
  stage: string;
  requestId: string;
}

/**
 * The visible part of the model's streamed text on `run.<runId>.stream` (not durable), piece by piece:
 * reasoning blocks never come out, and a piece is only what the visible text grew by.
 */
export function followVisibleText(bus: MessageBus, prefix: string, runId: string, onDelta: (delta: VisibleDelta) => void): () => void {
  let requestId: string | null = null;
  let raw = '';
  let shown = 0;
  const subscription: BusSubscription = bus.subscribe(withPrefix(prefix, publishContracts['run.stream'].subject(runId)), (m) => {
    const delta = JSON.parse(m.body) as ModelStreamDelta;
    if (delta.requestId !== requestId) {
      requestId = delta.requestId;
      raw = '';
      shown = 0;
    }
    raw += delta.text;
    const visible = visibleText(raw);
    if (visible.length <= shown) return;
    const text = visible.slice(shown);
    shown = visible.length;
    onDelta({ text, stage: delta.stage, requestId: delta.requestId });
  });
  return () => subscription.unsubscribe();
}

export interface LiveStatus {
  /** A stage began (from the run's events): the spinner names it. */
  stage(name: string): void;
  /** Ends a streamed line and clears the spinner, so that a durable line can be printed next. */
  clear(): void;
  stop(): void;
  /** Whether this text (an answer) was streamed whole as one model answer, so it need not be printed again. */
  streamed(text: string): boolean;
}

/** Stages whose streamed text is for the model's own use (the review's report is printed as its verdict). */
const UNSTREAMED_STAGES: ReadonlySet<string> = new Set(['qa_review']);

/**
 * While a run is followed on a terminal: the model's visible text streams into the scrollback as it
 * comes, under a dim `── stage ──` line when the stage changes; between answers one line, redrawn in
 * place, shows a spinner and the stage. Hostile control characters are shown, never obeyed.
 */
export function followLiveText(
  bus: MessageBus,
  prefix: string,
  runId: string,
  out: { write(text: string): unknown; columns?: number },
  style: { dim(text: string): string } = { dim: (text) => text },
): LiveStatus {
  let stage: string | null = null;
  let headed: string | null = null;
  let requestId: string | null = null;
  let answer = '';
  const answers: string[] = [];
  let frame = 0;
  let spinner = false;
  let atLineStart = true;
  let stopped = false;
  const clearSpinner = () => {
    if (spinner) out.write('\r\x1b[2K');
    spinner = false;
  };
  const endLine = () => {
    clearSpinner();
    if (!atLineStart) out.write('\n');
    atLineStart = true;
  };
  const draw = () => {
    if (!atLineStart || stopped) return;
    out.write(`\r\x1b[2K${statusLine({ stage, visible: '', frame: frame++, width: out.columns || 80 })}`);
    spinner = true;
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  const unsubscribe = followVisibleText(bus, prefix, runId, (delta) => {
    stage = delta.stage;
    if (UNSTREAMED_STAGES.has(delta.stage)) return;
    if (delta.requestId !== requestId) {
      requestId = delta.requestId;
      endLine();
      answer = '';
      answers.push('');
    }
    if (headed !== delta.stage) {
      endLine();
      out.write(`${style.dim(`── ${delta.stage} ──`)}\n`);
      headed = delta.stage;
    }
    // Leading blank lines of an answer (what followed its reasoning block) say nothing.
    const text = printable(answer === '' ? delta.text.replace(/^\s+/, '') : delta.text);
    answer += delta.text;
    answers[answers.length - 1] = answer;
    if (text === '') return;
    clearSpinner();
    out.write(text);
    atLineStart = text.endsWith('\n');
  });
  return {
    stage(name) {
      stage = name;
    },
    clear: endLine,
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      endLine();
    },
    streamed(text) {
      const wanted = text.trim();
      return wanted !== '' && answers.some((a) => a.trim() === wanted || a.trim().endsWith(`\n${wanted}`));
    },
  };
}
