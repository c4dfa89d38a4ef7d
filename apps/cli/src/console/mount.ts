import { randomBytes } from 'node:crypto';
import { apiV1 } from '@stagecraft/contracts';
import type { EventReader } from '@stagecraft/event-store';
import { restoreRequests } from '@stagecraft/conversation-service';
import { consoleViewReader, createApi } from '@stagecraft/http-api';
import { memoryConfigFromEnv } from '@stagecraft/memory-service';
import type { Requester } from '@stagecraft/messaging';
import { apiHttpSettings } from '../mcp/http-settings';
import { listenConsole } from './http-edge';
import { consoleDist } from './static-files';

export interface ConsoleMount {
  log: EventReader;
  requester: Requester;
  port: number;
  host: string;
  env: Record<string, string | undefined>;
  version: string;
  note(line: string): void;
}

export interface MountedConsole {
  port: number;
  /** The page's address; carries the token in its fragment only when it was generated for this run. */
  url: string;
  token: string;
  close(): Promise<void>;
}

const urlHost = (host: string) => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

/**
 * The API and the console page on one port, over a log and the system's subjects: what `stagecraft
 * console` and `stagecraft serve` (with STAGECRAFT_API_PORT) both mount. The settings are checked
 * before anything listens.
 */
export async function mountConsole(mount: ConsoleMount): Promise<MountedConsole> {
  const settings = apiHttpSettings(mount.env, mount.host, () => randomBytes(32).toString('base64url'));
  const ports = { log: mount.log, requester: mount.requester, restoreRequests, prices: memoryConfigFromEnv(mount.env).prices };
  const view = consoleViewReader(mount.log);
  const api = createApi(ports, view);
  const dist = consoleDist();
  const listening = await listenConsole(
    {
      api,
      log: mount.log,
      settings,
      openApi: apiV1.apiV1OpenApi(mount.version),
      dist,
      onError: (e) => mount.note(`request failed: ${e instanceof Error ? e.message : String(e)}`),
    },
    mount.port,
    mount.host,
  );
  // The first fold reads the whole log: started now, so the first page does not wait for all of it.
  view.current().catch((error: unknown) => mount.note(`reading the log failed: ${error instanceof Error ? error.message : String(error)}`));
  const base = `http://${urlHost(mount.host)}:${listening.port}/`;
  const url = settings.generatedToken ? `${base}#token=${settings.token}` : `${base}#token=<STAGECRAFT_API_TOKEN>`;
  mount.note(`console on ${url}`);
  if (settings.generatedToken)
    mount.note('no STAGECRAFT_API_TOKEN set: this run generated the token above (API clients send Authorization: Bearer <token>)');
  return { port: listening.port, url, token: settings.token, close: listening.close };
}
