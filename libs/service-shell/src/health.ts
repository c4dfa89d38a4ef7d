import { Controller, Inject, Module, Type } from '@nestjs/common';
import { HealthReply, STAGECRAFT_VERSION, ServiceName, healthStatusOf, healthSubject } from '@stagecraft/contracts';
import { loadShellConfig } from './config';
import { Handles } from './handles';
import type { ShellPorts } from './ports';
import { DependencyTargets, checkDependencies, dependencyTargets } from './readiness';
import { SHELL_CONFIG } from './tokens';

/** One service's health: it answers, and says how each of its dependencies answers right now. */
export async function healthReply(
  service: ServiceName,
  ports: ShellPorts,
  usesStore: boolean,
  targets: DependencyTargets = healthTargets(service, ports, usesStore),
): Promise<HealthReply> {
  const dependencies = await checkDependencies(targets);
  return {
    service,
    status: healthStatusOf(dependencies),
    version: STAGECRAFT_VERSION,
    pid: ports.instance.pid,
    uptimeMs: Math.max(0, ports.clock().getTime() - ports.startedAt.getTime()),
    transport: ports.bus.kind,
    store: usesStore && ports.store ? ports.store.kind : null,
    dependencies,
  };
}

/** The addresses come from the environment the composition root passed (flags already applied by the CLI). */
export function healthTargets(service: ServiceName, ports: ShellPorts, usesStore: boolean): DependencyTargets {
  let addresses: { store: string; natsUrl?: string };
  try {
    addresses = loadShellConfig({ ...ports.env });
  } catch {
    // The process started with this environment, so it was valid then; name the kinds at least.
    addresses = { store: ports.store?.kind ?? 'store', natsUrl: undefined };
  }
  return dependencyTargets({
    services: [{ name: service, usesStore }],
    store: ports.store,
    storeAddress: addresses.store,
    bus: ports.bus,
    natsAddress: addresses.natsUrl,
    env: ports.env,
  });
}

/** Every service answers `<service>.health`; the class is made per service because patterns are static. */
export function healthModule(service: ServiceName, usesStore: boolean): Type<unknown> {
  @Controller()
  class HealthController {
    /** What to check never changes in a process: worked out once, not on every request. */
    private readonly targets: DependencyTargets;

    constructor(@Inject(SHELL_CONFIG) private readonly ports: ShellPorts) {
      this.targets = healthTargets(service, ports, usesStore);
    }

    @Handles(healthSubject(service))
    health(): Promise<HealthReply> {
      return healthReply(service, this.ports, usesStore, this.targets);
    }
  }

  @Module({ controllers: [HealthController] })
  class HealthModule {}
  Object.defineProperty(HealthModule, 'name', { value: `${service}HealthModule` });
  return HealthModule;
}
