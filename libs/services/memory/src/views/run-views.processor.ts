import type { Started } from '@stagecraft/service-shell';
import type { MemoryDeps } from '../dependencies';

/** Every read model starts from its checkpoint with the service, and is saved when it stops. */
export async function runViews({ views }: Pick<MemoryDeps, 'views'>): Promise<Started> {
  await views.start();
  return { stop: () => views.stop() };
}
