import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EVENT_STORE_URL, openEventStore, parseEventStoreUrl } from './open-event-store';

describe('parseEventStoreUrl', () => {
  it.each([
    ['memory:', { kind: 'memory' }],
    ['sqlite:.stagecraft/events.db', { kind: 'sqlite', path: '.stagecraft/events.db' }],
    ['sqlite:///var/lib/stagecraft/events.db', { kind: 'sqlite', path: '/var/lib/stagecraft/events.db' }],
    ['kurrentdb://localhost:2113?tls=false', { kind: 'kurrentdb', connectionString: 'kurrentdb://localhost:2113?tls=false' }],
    ['esdb://eventstore:2113?tls=false', { kind: 'kurrentdb', connectionString: 'kurrentdb://eventstore:2113?tls=false' }],
  ])('reads %s', (url, location) => {
    expect(parseEventStoreUrl(url)).toEqual(location);
  });

  it.each(['', 'sqlite:', 'postgres://db/events', 'memory:x', 'kurrentdb://'])('rejects %j with VALIDATION', (url) => {
    expect(() => parseEventStoreUrl(url)).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });
});

describe('openEventStore', () => {
  it('opens memory and sqlite stores of the right kind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stagecraft-open-'));
    const memory = openEventStore('memory:');
    const sqlite = openEventStore(`sqlite:${join(dir, 'events.db')}`);
    expect([memory.kind, sqlite.kind]).toEqual(['memory', 'sqlite']);
    await Promise.all([memory.close(), sqlite.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a sqlite file in a missing directory, except at the default location', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stagecraft-open-'));
    const cwd = process.cwd();
    try {
      expect(() => openEventStore(`sqlite:${join(dir, 'nope', 'events.db')}`)).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
      expect(existsSync(join(dir, 'nope'))).toBe(false);
      process.chdir(dir);
      const fallback = openEventStore(DEFAULT_EVENT_STORE_URL);
      await fallback.close();
      expect(existsSync(join(dir, '.stagecraft', 'events.db'))).toBe(true);
      const named = openEventStore(`sqlite:${join(dir, 'made', 'events.db')}`, { createDirectory: true });
      await named.close();
      expect(existsSync(join(dir, 'made', 'events.db'))).toBe(true);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates a KurrentDB store without connecting until first use', async () => {
    const store = openEventStore('kurrentdb://127.0.0.1:1?tls=false');
    expect(store.kind).toBe('kurrentdb');
    await store.close();
  });
});
