import { join } from 'node:path';
import { EventStore } from '@stagecraft/event-store';
import { startDistributedSystem } from './distributed-system';
import { RunFeed, startEmbeddedSystem } from './embedded-system';

/** A deployment a suite drives against the scripted model: where it sends and follows runs, the store it reads, and its end. */
export interface ScriptedDeployment extends RunFeed {
  store: EventStore;
  close(): Promise<void>;
}

/** The six services in this process on the in-process bus, with their store in `dir`. */
export async function embeddedDeployment(dir: string, modelUrl: string): Promise<ScriptedDeployment> {
  const system = await startEmbeddedSystem({ modelUrl, storePath: join(dir, 'embedded.db') });
  return { ...system, close: () => system.stop() };
}

/**
 * The six services as processes on NATS, each signed in as itself, their store in `dir`; closing it
 * checks that every process stopped cleanly.
 */
export async function distributedDeployment(
  dir: string,
  modelUrl: string,
  prefix: string,
  env: Record<string, string> = {},
): Promise<ScriptedDeployment> {
  const system = await startDistributedSystem({
    prefix,
    storePath: join(dir, 'distributed.db'),
    env: { OPENAI_BASE_URL: modelUrl, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted', STAGECRAFT_MODEL_MAX_RETRIES: '0', ...env },
  });
  return {
    bus: system.bus,
    requester: system.requester,
    prefix,
    store: system.store,
    async close() {
      const codes = await system.stop();
      expect(codes).toEqual(system.services.map(() => 0));
    },
  };
}
