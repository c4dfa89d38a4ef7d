import { DynamicModule, Global, Module } from '@nestjs/common';
import { ShellPorts } from './ports';
import { CLOCK, EVENT_READER, EVENT_STORE, LOGGER, MESSAGE_BUS, NEW_ID, REQUESTER, SHELL_CONFIG } from './tokens';

/** Binds the ports once for every service module in the process. */
@Global()
@Module({})
export class ShellModule {
  static forRoot(ports: ShellPorts): DynamicModule {
    const providers = [
      { provide: MESSAGE_BUS, useValue: ports.bus },
      { provide: REQUESTER, useValue: ports.requester },
      { provide: EVENT_STORE, useValue: ports.store },
      { provide: EVENT_READER, useValue: ports.store },
      { provide: CLOCK, useValue: ports.clock },
      { provide: NEW_ID, useValue: ports.newId },
      { provide: LOGGER, useValue: ports.logger },
      { provide: SHELL_CONFIG, useValue: ports },
    ];
    return { module: ShellModule, providers, exports: providers.map((p) => p.provide) };
  }
}
