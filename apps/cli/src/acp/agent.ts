import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import {
  AgentApp,
  AgentContext,
  ClientCapabilities,
  PROTOCOL_VERSION,
  SessionConfigOption,
  SessionModeState,
  agent,
} from '@agentclientprotocol/sdk';
import { StagecraftError, UserMode } from '@stagecraft/contracts';
import { checkProjectRoot } from '@stagecraft/tools';
import type { AcpContext, AcpSession } from './context';
import { readFromDisk } from './diff-content';
import { bridgeOf, editorReader, offersFiles, serveEditorFiles } from './editor-fs';
import { mapped, unknownSession } from './errors';
import { cancelPrompt, runPrompt } from './prompt';
import { replayConversation } from './replay';

const MODES: SessionModeState['availableModes'] = [
  { id: 'agent', name: 'Agent', description: 'may change the project: writes files and runs commands' },
  { id: 'chat', name: 'Chat', description: 'answers only: reads the project, changes nothing' },
];

const REASONING = 'reasoning';

const modesOf = (session: AcpSession): SessionModeState => ({ currentModeId: session.mode, availableModes: MODES });
const optionsOf = (session: AcpSession): SessionConfigOption[] => [
  {
    id: REASONING,
    name: 'Reasoning',
    description: 'require a reasoning block on every step (recorded with each run)',
    category: 'thought_level',
    type: 'boolean',
    currentValue: session.reasoning,
  },
];

/** The project root a session works in: absolute, inside the allowed roots, as its real path. */
async function sessionRoot(context: AcpContext, cwd: string): Promise<string> {
  try {
    return await checkProjectRoot(resolve(cwd), context.allowedRoots);
  } catch (error) {
    if (!(error instanceof StagecraftError)) throw error;
    throw new StagecraftError(error.code, error.message, [{ path: ['cwd'], message: error.message }]);
  }
}

/**
 * The ACP agent: sessions are conversations, prompts are runs, the mode and the reasoning setting
 * belong to the client alone (nothing a model says reaches them), approvals are permission requests.
 */
export function createAcpAgent(context: AcpContext, version: string): AgentApp {
  const sessions = new Map<string, AcpSession>();
  let clientCapabilities: ClientCapabilities = {};
  /** A session, and its file bridge when the client offers one (a session loaded again replaces the one it was). */
  const open = (fields: Omit<AcpSession, 'running' | 'editor'>, client: AgentContext): AcpSession => {
    sessions.get(fields.id)?.editor?.close();
    const bridge = offersFiles(clientCapabilities) ? bridgeOf(fields.id) : null;
    const served = bridge && serveEditorFiles(context.bus, context.config.prefix, fields, () => client);
    const session: AcpSession = {
      ...fields,
      running: null,
      editor: bridge && served ? { bridge, close: () => served.unsubscribe() } : null,
    };
    sessions.set(session.id, session);
    return session;
  };
  const sessionOf = (id: string) => {
    const session = sessions.get(id);
    if (!session) throw unknownSession(id);
    return session;
  };
  return agent({ name: 'stagecraft' })
    .onRequest(
      'initialize',
      mapped(async ({ params }) => {
        clientCapabilities = params.clientCapabilities ?? {};
        return {
          protocolVersion: PROTOCOL_VERSION,
          agentCapabilities: {
            loadSession: true,
            promptCapabilities: { image: false, audio: false, embeddedContext: true },
          },
          agentInfo: { name: 'stagecraft', title: 'Stagecraft', version },
          authMethods: [],
        };
      }),
    )
    .onRequest(
      'session/new',
      mapped(async ({ params, client }) => {
        const cwd = await sessionRoot(context, params.cwd);
        const session = open({ id: randomUUID(), cwd, mode: 'agent', reasoning: false }, client);
        return { sessionId: session.id, modes: modesOf(session), configOptions: optionsOf(session) };
      }),
    )
    .onRequest(
      'session/load',
      mapped(async ({ params, client }) => {
        const cwd = await sessionRoot(context, params.cwd);
        if (sessions.get(params.sessionId)?.running)
          throw new StagecraftError('CONFLICT', `session ${params.sessionId} is answering a prompt`);
        const loaded = await replayConversation(context, params.sessionId, cwd, client);
        const session = open({ id: params.sessionId, cwd, mode: loaded.mode, reasoning: loaded.reasoning }, client);
        return { modes: modesOf(session), configOptions: optionsOf(session) };
      }),
    )
    .onRequest(
      'session/set_mode',
      mapped(async ({ params }) => {
        const session = sessionOf(params.sessionId);
        const mode = UserMode.safeParse(params.modeId);
        if (!mode.success)
          throw new StagecraftError('VALIDATION', `unknown mode ${params.modeId}`, [{ path: ['modeId'], message: 'agent or chat' }]);
        session.mode = mode.data;
        return {};
      }),
    )
    .onRequest(
      'session/set_config_option',
      mapped(async ({ params }) => {
        const session = sessionOf(params.sessionId);
        if (params.configId !== REASONING || typeof params.value !== 'boolean')
          throw new StagecraftError('VALIDATION', `unknown option ${params.configId}`, [
            { path: ['configId'], message: `the only option is ${REASONING}, a boolean` },
          ]);
        session.reasoning = params.value;
        return { configOptions: optionsOf(session) };
      }),
    )
    .onRequest(
      'session/prompt',
      mapped(async ({ params, client }) => {
        const session = sessionOf(params.sessionId);
        // With an editor, the file after a write is the editor's text of it.
        const readNow = session.editor ? editorReader(client, session.id) : readFromDisk;
        return runPrompt(context, session, params.prompt, client, readNow);
      }),
    )
    .onNotification('session/cancel', async ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (session)
        await cancelPrompt(context, session).catch((error: unknown) =>
          process.stderr.write(`stagecraft acp: could not cancel: ${(error as Error).message}\n`),
        );
    });
}
