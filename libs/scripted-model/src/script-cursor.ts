import { RecordedRequest, Script, ScriptedReply } from './script';

/** Raised when a request has no scripted reply; answered as a 500 the client must not retry. */
export class ScriptExhaustedError extends Error {
  constructor(request: RecordedRequest, scripted: number) {
    super(
      `scripted model: no reply scripted for request ${request.index} (the script holds ${scripted} ${scripted === 1 ? 'reply' : 'replies'})`,
    );
    this.name = 'ScriptExhaustedError';
  }
}

/** Hands out replies: an array in order, or the function's answer for each request. */
export function scriptCursor(script: Script): (request: RecordedRequest) => Promise<ScriptedReply> {
  if (typeof script === 'function') return async (request) => script(request);
  let next = 0;
  return async (request) => {
    const reply = script[next];
    if (reply === undefined) throw new ScriptExhaustedError(request, script.length);
    next += 1;
    return reply;
  };
}
