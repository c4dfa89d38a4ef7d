import { Controller, Inject, Module, Type } from '@nestjs/common';
import { HealthReply, STAGECRAFT_VERSION, ServiceName, healthSubject } from '@stagecraft/contracts';
import { Handles } from './handles';
import type { ShellPorts } from './ports';
import { SHELL_CONFIG } from './tokens';

export function healthReply(service: ServiceName, ports: ShellPorts, usesStore: boolean): HealthReply {
  return {
    service,
    status: 'ok',
    version: STAGECRAFT_VERSION,
    pid: process.pid,
    uptimeMs: Math.max(0, ports.clock().getTime() - ports.startedAt.getTime()),
    transport: ports.bus.kind,
    store: usesStore && ports.store ? ports.store.kind : null,
  };
}

/** Every service answers `<service>.health`; the class is made per service because patterns are static. */
export function healthModule(service: ServiceName, usesStore: boolean): Type<unknown> {
  @Controller()
  class HealthController {
    constructor(@Inject(SHELL_CONFIG) private readonly ports: ShellPorts) {}

    @Handles(healthSubject(service))
    health(): HealthReply {
      return healthReply(service, this.ports, usesStore);
    }
  }

  @Module({ controllers: [HealthController] })
  class HealthModule {}
  Object.defineProperty(HealthModule, 'name', { value: `${service}HealthModule` });
  return HealthModule;
}
