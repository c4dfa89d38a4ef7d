import { CustomTransportStrategy, Server } from '@nestjs/microservices';
import { REQUEST_SUBJECTS, RequestSubject } from '@stagecraft/contracts';
import { BusSubscription, MessageBus, RequestContext, RequestHandler, RequestHandlers, serveRequests } from '@stagecraft/messaging';
import { lastValueFrom } from 'rxjs';
import { InFlight, createInFlight } from './in-flight';

const isRequestSubject = (pattern: string): pattern is RequestSubject => (REQUEST_SUBJECTS as string[]).includes(pattern);

/**
 * Nest's handlers over Stagecraft's buses. Nest's own NATS transport wraps every payload in
 * `{ pattern, data, id }`; this one puts the contract JSON on the wire as it is, validated at
 * the edge (docs/decisions/0001-custom-nats-transport.md).
 */
export class StagecraftTransport extends Server implements CustomTransportStrategy {
  private subscription?: BusSubscription;
  /** What a stop waits for (see `RunningServices.close`). */
  readonly inFlight: InFlight = createInFlight();

  constructor(private readonly options: { bus: MessageBus; prefix: string; newId: () => string }) {
    super();
  }

  listen(callback: (...args: unknown[]) => void): void {
    const handlers: RequestHandlers = {};
    for (const [pattern, handler] of this.messageHandlers) {
      if (!isRequestSubject(pattern)) throw new Error(`@MessagePattern('${pattern}') is not a subject in @stagecraft/contracts`);
      const invoke: RequestHandler<RequestSubject> = (request, context: RequestContext) =>
        this.inFlight.track(pattern, (async () => lastValueFrom(this.transformToObservable(await handler(request, context))))());
      (handlers as Record<string, unknown>)[pattern] = invoke;
    }
    this.subscription = serveRequests(this.options.bus, handlers, this.options);
    void this.options.bus.flush().then(() => callback(), callback);
  }

  /** No new requests reach this process; those in flight go on. */
  close(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  on(): never {
    throw new Error('StagecraftTransport does not emit transport events');
  }

  unwrap<T>(): T {
    return this.options.bus as T;
  }
}
