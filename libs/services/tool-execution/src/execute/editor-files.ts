import { EditorBridge, EditorFsReply, EditorFsRequest, StagecraftError, editorFsSubject, withPrefix } from '@stagecraft/contracts';
import type { MessageBus } from '@stagecraft/messaging';
import type { FileAccess } from '@stagecraft/tools';

/** An editor answers from the person's own machine: a read or a write that takes longer has failed. */
const EDITOR_TIMEOUT_MS = 30_000;

/**
 * The final bytes of a run's reads and writes, through the editor its request names
 * (`editor.<sessionId>.fs`, docs/decisions/0061). Only called after the tool has checked the path and
 * the file; an editor that does not answer fails the call, it never falls back to the disk for a write.
 */
export function editorFiles(bus: MessageBus, prefix: string, editor: EditorBridge): FileAccess {
  const subject = withPrefix(prefix, editorFsSubject(editor.sessionId));
  const ask = async (request: EditorFsRequest): Promise<string | null> => {
    let reply: EditorFsReply;
    try {
      const message = await bus.request(subject, JSON.stringify(request), { timeoutMs: EDITOR_TIMEOUT_MS });
      reply = EditorFsReply.parse(JSON.parse(message.body));
    } catch (error) {
      throw new StagecraftError('UNAVAILABLE', `the editor of session ${editor.sessionId} did not answer: ${(error as Error).message}`);
    }
    if (!reply.ok) throw new StagecraftError(reply.error.code, `the editor refused: ${reply.error.message}`);
    return reply.content;
  };
  return {
    readText: (path) => ask({ op: 'read', path }),
    writeText: async (path, content) => void (await ask({ op: 'write', path, content })),
  };
}
