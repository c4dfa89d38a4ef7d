import { sseParser, type SseMessage } from './sse';

export interface LiveEvent {
  position?: string;
  type: string;
  data: unknown;
  metadata?: { runId?: string; conversationId?: string; occurredAt?: string };
}

export interface LiveOptions {
  token: string;
  /** `?runId=…` for one run's events; absent for every public event. */
  runId?: string;
  /** Resume after this position (the last one the page already shows). */
  after?: string;
  onEvent(event: LiveEvent): void;
  onState?(state: 'live' | 'reconnecting'): void;
}

/**
 * The SSE stream read with fetch() (EventSource cannot send the bearer token): each message's `id` is
 * its log position, and after a drop the stream is asked again from the last one seen (`Last-Event-ID`),
 * so the page neither misses nor repeats an event. Returns the function that stops it.
 */
export function followEvents(options: LiveOptions): () => void {
  const controller = new AbortController();
  let last = options.after;
  let delay = 500;
  const deliver = (message: SseMessage) => {
    if (message.id !== undefined) last = message.id;
    if (!message.data) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      return;
    }
    if (!parsed || typeof parsed !== 'object') return;
    const event = parsed as Partial<LiveEvent>;
    options.onEvent({
      ...event,
      type: typeof event.type === 'string' ? event.type : message.event,
      data: event.data,
      position: typeof event.position === 'string' ? event.position : message.id,
    });
  };
  const connect = async () => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: 'text/event-stream' };
    if (last !== undefined) headers['last-event-id'] = last;
    const url = `/api/v1/events${options.runId ? `?runId=${encodeURIComponent(options.runId)}` : ''}`;
    const reply = await fetch(url, { headers, signal: controller.signal, cache: 'no-store' });
    if (!reply.ok || !reply.body) throw new Error(`events: HTTP ${reply.status}`);
    options.onState?.('live');
    delay = 500;
    const reader = reply.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = sseParser();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(value).forEach(deliver);
    }
  };
  void (async () => {
    while (!controller.signal.aborted) {
      try {
        await connect();
      } catch {
        // a drop or a refused request: try again below, after the last position seen
      }
      if (controller.signal.aborted) return;
      options.onState?.('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  })();
  return () => controller.abort();
}
