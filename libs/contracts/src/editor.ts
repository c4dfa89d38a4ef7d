import { z } from 'zod';
import { ErrorReply } from './errors';

/**
 * An editor session's id as it travels in a subject: one token (no dots), so that the bus permissions
 * can grant `editor.*.fs` and nothing wider.
 */
export const EditorSessionId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'letters, digits, "_" or "-" (max 128)');

/**
 * The editor a run's file reads and writes go through (an ACP client's `fs/read_text_file` and
 * `fs/write_text_file`), named by its session (docs/decisions/0061). The tool service still decides
 * every call and every path; only the final read or write of the bytes is the editor's.
 */
export const EditorBridge = z.object({ sessionId: EditorSessionId });
export type EditorBridge = z.infer<typeof EditorBridge>;

/** What the tool service asks of the editor on `editor.<sessionId>.fs`: an absolute path it has checked. */
export const EditorFsRequest = z.discriminatedUnion('op', [
  z.object({ op: z.literal('read'), path: z.string().min(1) }),
  z.object({ op: z.literal('write'), path: z.string().min(1), content: z.string() }),
]);
export type EditorFsRequest = z.infer<typeof EditorFsRequest>;

/** `content`: the editor's text of the file (its unsaved buffer too); null when it has none (the disk is read). */
export const EditorFsReply = z.union([
  z.object({ ok: z.literal(true), content: z.string().nullable() }),
  z.object({ ok: z.literal(false), error: ErrorReply }),
]);
export type EditorFsReply = z.infer<typeof EditorFsReply>;

export const editorFsSubject = (sessionId: string) => `editor.${EditorSessionId.parse(sessionId)}.fs`;
