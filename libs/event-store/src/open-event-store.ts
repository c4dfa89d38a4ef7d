import { StagecraftError } from '@stagecraft/contracts';
import { normalizeKurrentDbConnectionString } from './kurrentdb/connection-string';
import { createKurrentDbEventStore } from './kurrentdb/kurrentdb-event-store';
import { createMemoryEventStore } from './memory/memory-event-store';
import { createSqliteEventStore } from './sqlite/sqlite-event-store';
import { instrumentedStore } from './instrumented';
import type { EventStore } from './port';

export type EventStoreLocation = { kind: 'memory' } | { kind: 'sqlite'; path: string } | { kind: 'kurrentdb'; connectionString: string };

/** `memory:`, `sqlite:PATH` (also `sqlite:///abs/path`), `kurrentdb://…` or `esdb://…`. */
export function parseEventStoreUrl(url: string): EventStoreLocation {
  const value = url.trim();
  if (value === 'memory:' || value === 'memory') return { kind: 'memory' };
  if (value.startsWith('sqlite:')) {
    const rest = value.slice('sqlite:'.length);
    const path = rest.startsWith('//') ? rest.slice(2) : rest;
    if (path.length === 0) throw invalid(url, 'sqlite: needs a file path, e.g. sqlite:.stagecraft/events.db');
    return { kind: 'sqlite', path };
  }
  if (/^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//i.test(value)) {
    return { kind: 'kurrentdb', connectionString: normalizeKurrentDbConnectionString(value) };
  }
  throw invalid(url, 'expected memory:, sqlite:PATH, kurrentdb://host:port or esdb://host:port');
}

/** Where every process keeps its log when no store is named: the one location whose directory is made on first use. */
export const DEFAULT_EVENT_STORE_URL = 'sqlite:.stagecraft/events.db';

export interface OpenEventStoreOptions {
  /** Make a sqlite file's missing directory; by default only for `DEFAULT_EVENT_STORE_URL`, so a mistyped path fails. */
  createDirectory?: boolean;
}

/** Opens the store a URL names, its appends measured (docs/observability.md). */
export function openEventStore(url: string, options: OpenEventStoreOptions = {}): EventStore {
  return instrumentedStore(openUninstrumented(url, options));
}

function openUninstrumented(url: string, options: OpenEventStoreOptions): EventStore {
  const location = parseEventStoreUrl(url);
  switch (location.kind) {
    case 'memory':
      return createMemoryEventStore();
    case 'sqlite': {
      const createDirectory = options.createDirectory ?? url.trim() === DEFAULT_EVENT_STORE_URL;
      return createSqliteEventStore({ path: location.path, createDirectory });
    }
    case 'kurrentdb':
      return createKurrentDbEventStore({ connectionString: location.connectionString });
    default: {
      const unknown: never = location;
      throw invalid(url, `unknown store kind ${JSON.stringify(unknown)}`);
    }
  }
}

function invalid(url: string, message: string): StagecraftError {
  return new StagecraftError('VALIDATION', `invalid event store url '${url}'`, [{ path: ['store'], message }]);
}
