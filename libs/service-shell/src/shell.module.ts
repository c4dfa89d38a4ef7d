import { DynamicModule, Global, Module } from '@nestjs/common';
import { ShellPorts } from './ports';
import { SHELL_CONFIG } from './tokens';

/** Binds the ports once for every service module in the process (each builds its dependencies from them). */
@Global()
@Module({})
export class ShellModule {
  static forRoot(ports: ShellPorts): DynamicModule {
    const providers = [{ provide: SHELL_CONFIG, useValue: ports }];
    return { module: ShellModule, providers, exports: [SHELL_CONFIG] };
  }
}
