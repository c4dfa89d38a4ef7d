import { z } from 'zod';
import { EventMetadata } from '../metadata';

/** Event data schemas by type name: the events one kind of stream holds. */
export type EventSchemas = Readonly<Record<string, z.ZodType>>;

/** `{ type, data, metadata }` for each type of a schema table, discriminated by `type`. */
export type EventUnion<S extends EventSchemas> = { [T in keyof S & string]: { type: T; data: z.infer<S[T]>; metadata: EventMetadata } }[keyof S & string];

/** The events of one stream family (`run-*`, `toolcall-*`, …): what a typed read of such a stream returns. */
export interface EventFamily<S extends EventSchemas> {
  readonly schemas: S;
  readonly types: readonly (keyof S & string)[];
  /**
   * Names this family's streams still hold from an earlier version, and the type each is read as
   * now: the data kept its shape, only the name changed (docs/decisions/0015).
   */
  readonly renamed: Readonly<Record<string, keyof S & string>>;
}

/** The event union of a family descriptor. */
export type FamilyEvent<F> = F extends EventFamily<infer S> ? EventUnion<S> : never;

export function eventFamily<S extends EventSchemas>(schemas: S, renamed: Readonly<Record<string, keyof S & string>> = {}): EventFamily<S> {
  return { schemas, types: Object.keys(schemas) as (keyof S & string)[], renamed };
}
