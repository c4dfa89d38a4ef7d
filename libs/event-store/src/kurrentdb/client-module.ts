import type * as Kurrent from '@kurrent/kurrentdb-client';

/** Loaded on first use: the gRPC client takes ~150 ms to load and the embedded deployment never needs it. */
export function loadKurrentClient(): typeof Kurrent {
  return require('@kurrent/kurrentdb-client') as typeof Kurrent;
}
