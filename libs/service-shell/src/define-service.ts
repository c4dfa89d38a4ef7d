import { Controller, Inject, Module, OnApplicationBootstrap, OnModuleDestroy, Type } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ParsedRequestOf, REQUEST_SUBJECTS, ReplyOf, RequestSubject, ServiceName } from '@stagecraft/contracts';
import type { RequestContext } from '@stagecraft/messaging';
import { ServiceDefinition, ShellPorts } from './ports';
import { SHELL_CONFIG } from './tokens';

/** One use case: the parsed request (validated against its contract at the edge) and what `start` built. */
export type Handler<S extends RequestSubject, Deps> = (
  request: ParsedRequestOf<S>,
  deps: Deps,
  context: RequestContext,
) => Promise<ReplyOf<S>> | ReplyOf<S>;

export type HandlerTable<Deps> = { [S in RequestSubject]?: Handler<S, Deps> };

/** What a processor leaves running (a log follower, a sweep); stopped when the service stops. */
export interface Started {
  stop(): Promise<void> | void;
}

/**
 * Work a service runs beside its handlers. Processors start in the order they are listed, each awaited
 * (one may wait until it has caught up with the log), all before the first request is taken; they stop
 * in the reverse order, after the last request was answered or abandoned. `undefined`: nothing to stop.
 */
export type ServiceProcessor<Deps> = (deps: Deps) => Promise<Started | undefined> | Started | undefined;

export interface ServiceSpec<Deps> {
  name: ServiceName;
  usesStore: boolean;
  /** See `ServiceDefinition.touchesProjects`. */
  touchesProjects?: boolean;
  /** Builds what the handlers use from the process's ports, once; a throw stops the start. Default: the ports. */
  start?: (ports: ShellPorts) => Promise<Deps> | Deps;
  handlers: HandlerTable<Deps>;
  processors?: Record<string, ServiceProcessor<Deps>>;
  /** Releases what `start` built, after the processors stopped. */
  stop?: (deps: Deps) => Promise<void> | void;
}

/** A service started on a host: what its `start` built (for a test to look at), by the service's token. */
export const dependenciesToken = (name: ServiceName): symbol => Symbol.for(`stagecraft.service.${name}.dependencies`);

const isRequestSubject = (subject: string): subject is RequestSubject => (REQUEST_SUBJECTS as string[]).includes(subject);
/** A method name that cannot clash with anything on a class. */
const methodOf = (subject: string) => `handle ${subject}`;

/**
 * A service as a table: `{ '<subject>': handler }`, processors and a start / stop pair. The Nest module
 * the host imports is generated from it, so handlers take the same path as before (in-flight tracking,
 * contract validation, telemetry and coded errors in `StagecraftTransport` / `serveRequests`) without
 * a controller, a token or a decorator in the service's own code.
 */
export function defineService<Deps = ShellPorts>(spec: ServiceSpec<Deps>): ServiceDefinition {
  for (const subject of Object.keys(spec.handlers)) {
    if (!isRequestSubject(subject)) throw new Error(`${spec.name}: '${subject}' is not a subject in @stagecraft/contracts`);
  }
  return { name: spec.name, usesStore: spec.usesStore, touchesProjects: spec.touchesProjects, module: serviceModule(spec) };
}

function serviceModule<Deps>(spec: ServiceSpec<Deps>): Type<unknown> {
  const DEPS = dependenciesToken(spec.name);

  class Handlers {
    constructor(readonly deps: Deps) {}
  }
  for (const [subject, handler] of Object.entries(spec.handlers) as [RequestSubject, Handler<RequestSubject, Deps>][]) {
    const name = methodOf(subject);
    Object.defineProperty(Handlers.prototype, name, {
      value: function (this: Handlers, request: ParsedRequestOf<RequestSubject>, context: RequestContext) {
        return handler(request, this.deps, context);
      },
      writable: true,
      configurable: true,
    });
    const descriptor = Object.getOwnPropertyDescriptor(Handlers.prototype, name) as PropertyDescriptor;
    Payload()(Handlers.prototype, name, 0);
    Ctx()(Handlers.prototype, name, 1);
    MessagePattern(subject)(Handlers.prototype, name, descriptor);
  }
  Reflect.defineMetadata('design:paramtypes', [Object], Handlers);
  Inject(DEPS)(Handlers, undefined, 0);
  Controller()(Handlers);
  Object.defineProperty(Handlers, 'name', { value: `${spec.name}Handlers` });

  class Lifecycle implements OnApplicationBootstrap, OnModuleDestroy {
    private readonly started: Started[] = [];

    constructor(private readonly deps: Deps) {}

    async onApplicationBootstrap(): Promise<void> {
      for (const processor of Object.values(spec.processors ?? {})) {
        const started = await processor(this.deps);
        if (started) this.started.push(started);
      }
    }

    async onModuleDestroy(): Promise<void> {
      for (const started of this.started.splice(0).reverse()) await started.stop();
      await spec.stop?.(this.deps);
    }
  }

  @Module({
    controllers: [Handlers],
    providers: [
      { provide: DEPS, inject: [SHELL_CONFIG], useFactory: (shell: ShellPorts) => (spec.start ? spec.start(shell) : (shell as Deps)) },
      { provide: Lifecycle, inject: [DEPS], useFactory: (deps: Deps) => new Lifecycle(deps) },
    ],
  })
  class ServiceModule {}
  Object.defineProperty(ServiceModule, 'name', { value: `${spec.name}Module` });
  return ServiceModule;
}
