import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { INestMicroservice } from '@nestjs/common';
import { healthModule } from './health';
import { PassErrorsThrough } from './pass-errors-through.filter';
import { ServiceDefinition, ShellPorts } from './ports';
import { ShellModule } from './shell.module';
import { StagecraftTransport } from './transport-strategy';

export interface RunningServices {
  services: ServiceDefinition[];
  app: INestMicroservice;
  close(): Promise<void>;
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

  const app = await NestFactory.createMicroservice(HostModule, {
    strategy: new StagecraftTransport({ bus: ports.bus, prefix: ports.prefix, newId: ports.newId }),
    logger: false,
    abortOnError: false,
  });
  app.useGlobalFilters(new PassErrorsThrough());
  await app.listen();
  return { services: definitions, app, close: () => app.close() };
}
