import { ModelStreamDelta, publishContracts, withPrefix } from '@stagecraft/contracts';
import type { BusSubscription, MessageBus } from '@stagecraft/messaging';

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

export interface LiveStatus {
  /** A stage began (from the run's events): the spinner names it. */
  stage(name: string): void;
  /** Clears the status line so that a durable line can be printed in its place. */
  clear(): void;
  stop(): void;
}

/**
 * While a run is followed on a terminal: one line, redrawn in place, with a spinner, the stage and the
 * tail of the model's visible text from `run.<runId>.stream` (not durable; the full answer is printed
 * from the run's events at the end).
 */
export function followLiveText(
  bus: MessageBus,
  prefix: string,
  runId: string,
  out: { write(text: string): unknown; columns?: number },
): LiveStatus {
  let stage: string | null = null;
  let raw = '';
  let requestId: string | null = null;
  let frame = 0;
  let shown = false;
  let stopped = false;
  const draw = () => {
    const line = statusLine({ stage, visible: visibleText(raw), frame: frame++, width: out.columns || 80 });
    out.write(`\r\x1b[2K${line}`);
    shown = true;
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  const subscription: BusSubscription = bus.subscribe(withPrefix(prefix, publishContracts['run.stream'].subject(runId)), (m) => {
    const delta = JSON.parse(m.body) as ModelStreamDelta;
    if (delta.requestId !== requestId) {
      requestId = delta.requestId;
      raw = '';
    }
    stage = delta.stage;
    raw += delta.text;
    draw();
  });
  return {
    stage(name) {
      if (name !== stage) raw = '';
      stage = name;
    },
    clear() {
      if (shown) out.write('\r\x1b[2K');
      shown = false;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      subscription.unsubscribe();
      this.clear();
    },
  };
}
