import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { INestMicroservice } from '@nestjs/common';
import { ServiceName } from '@stagecraft/contracts';
import { dependenciesToken } from './define-service';
import { healthModule } from './health';
import { PassErrorsThrough } from './pass-errors-through.filter';
import { ServiceDefinition, ShellPorts } from './ports';
import { ShellModule } from './shell.module';
import { StagecraftTransport } from './transport-strategy';

export interface RunningServices {
  services: ServiceDefinition[];
  app: INestMicroservice;
  /** What a service defined with `defineService` built in its `start` (tests look at it; handlers get it). */
  dependenciesOf<Deps>(name: ServiceName): Deps;
  /** Stops taking requests, gives those in flight `graceMs` (default: none) to finish, then closes the modules. */
  close(options?: StopOptions): Promise<void>;
}

export interface StopOptions {
  graceMs: number;
  /** The subjects of the requests still unanswered when the grace ran out (they are abandoned). */
  onAbandoned?: (subjects: string[]) => void;
}

/** Hosts one or more service modules in one Nest application on the given bus. */
export async function startServices(definitions: ServiceDefinition[], ports: ShellPorts): Promise<RunningServices> {
  @Module({
    imports: [
      ShellModule.forRoot(ports),
      ...definitions.map((d) => d.module),
      ...definitions.map((d) => healthModule(d.name, d.usesStore)),
    ],
  })
  class HostModule {}

  const transport = new StagecraftTransport({ bus: ports.bus, prefix: ports.prefix, newId: ports.newId });
  const app = await NestFactory.createMicroservice(HostModule, {
    strategy: transport,
    logger: false,
    abortOnError: false,
  });
  app.useGlobalFilters(new PassErrorsThrough());
  await app.listen();
  return {
    services: definitions,
    app,
    dependenciesOf: <Deps>(name: ServiceName) => app.get<symbol, Deps>(dependenciesToken(name), { strict: false }),
    async close(stop = { graceMs: 0 }) {
      transport.close();
      const abandoned = await transport.inFlight.settle(stop.graceMs);
      if (abandoned.length > 0) stop.onAbandoned?.(abandoned);
      await app.close();
    },
  };
}
