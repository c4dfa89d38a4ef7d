import { StagecraftError } from '@stagecraft/contracts';
import { normalizeKurrentDbConnectionString } from './kurrentdb/connection-string';
import { createKurrentDbEventStore } from './kurrentdb/kurrentdb-event-store';
import { createMemoryEventStore } from './memory/memory-event-store';
import { createSqliteEventStore } from './sqlite/sqlite-event-store';
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

export function openEventStore(url: string): EventStore {
  const location = parseEventStoreUrl(url);
  switch (location.kind) {
    case 'memory':
      return createMemoryEventStore();
    case 'sqlite':
      return createSqliteEventStore({ path: location.path });
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
