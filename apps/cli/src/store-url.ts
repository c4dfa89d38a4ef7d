import { DEFAULT_EVENT_STORE_URL } from '@stagecraft/event-store';

/**
 * The store, for the commands that only read or write the log: the same choice as `cliConfig` (the
 * flag, then STAGECRAFT_STORE, empty meaning unset) without loading the service shell. The URL is
 * validated where the store is opened.
 */
export function storeOf(flags: { store?: string }): string {
  return flags.store || process.env['STAGECRAFT_STORE'] || DEFAULT_EVENT_STORE_URL;
}
