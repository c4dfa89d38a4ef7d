import { isAbsolute } from 'node:path';
import type { AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
import {
  EditorBridge,
  EditorFsReply,
  EditorFsRequest,
  EditorSessionId,
  StagecraftError,
  editorFsSubject,
  toErrorReply,
  withPrefix,
} from '@stagecraft/contracts';
import type { BusSubscription, MessageBus } from '@stagecraft/messaging';
import { isInside } from '@stagecraft/tools';

/** Reads and writes go through the editor only when it offers both: a run never mixes the two for one file. */
export const offersFiles = (capabilities: ClientCapabilities): boolean =>
  Boolean(capabilities.fs?.readTextFile && capabilities.fs?.writeTextFile);

/** The bridge a run names, when the session can have one (its id is one subject token). */
export const bridgeOf = (sessionId: string): EditorBridge | null => (EditorSessionId.safeParse(sessionId).success ? { sessionId } : null);

/** The editor's text of a file, for the diff a write shows; null when it has none. */
export const editorReader =
  (client: AgentContext, sessionId: string) =>
  (path: string): Promise<string | null> =>
    client.request('fs/read_text_file', { sessionId, path }).then(
      (read) => read.content,
      () => null,
    );

const reply = (body: EditorFsReply) => ({ body: JSON.stringify(body) });

/**
 * Serves `editor.<sessionId>.fs` for one session: the tool service, having checked a call and its
 * path, asks for the file's text (the editor's buffer, unsaved changes included) or hands it the text
 * to write. This side checks again that the path lies in the session's project, so that nothing on the
 * bus can use the editor to reach another file.
 */
export function serveEditorFiles(
  bus: MessageBus,
  prefix: string,
  session: { id: string; cwd: string },
  client: () => AgentContext,
): BusSubscription {
  return bus.respond(withPrefix(prefix, editorFsSubject(session.id)), `acp-${session.id}`, async (message) => {
    try {
      const request = EditorFsRequest.parse(JSON.parse(message.body));
      if (!isAbsolute(request.path) || !isInside(session.cwd, request.path))
        throw new StagecraftError('FORBIDDEN_PATH', `${request.path} is outside the session's project`, [
          { path: ['path'], message: 'outside the project' },
        ]);
      if (request.op === 'read') {
        // An editor that cannot read the file (none open, none on disk) leaves it to the disk.
        const read = await client()
          .request('fs/read_text_file', { sessionId: session.id, path: request.path })
          .catch(() => null);
        return reply({ ok: true, content: read?.content ?? null });
      }
      await client().request('fs/write_text_file', { sessionId: session.id, path: request.path, content: request.content });
      return reply({ ok: true, content: null });
    } catch (error) {
      return reply({ ok: false, error: toErrorReply(error) });
    }
  });
}
