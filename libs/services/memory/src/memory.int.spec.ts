import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { streams } from '@stagecraft/contracts';
import type { RequestOf, RequestSubject } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { Host, startHost } from '@stagecraft/service-shell';
import { memoryService } from './index';

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };

let dir: string;
let host: Host;
let store: EventStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stagecraft-memory-'));
  host = await startHost({ definitions: [memoryService], transport: 'inproc', store: `sqlite:${join(dir, 'events.db')}`, config });
  store = host.ports.store as EventStore;
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = <S extends RequestSubject>(subject: S, data: RequestOf<S>) => host.ports.requester.request(subject, data);

describe('memory.reflect', () => {
  const scope = 'project-reflect';

  beforeAll(async () => {
    await request('memory.retain', { scope, tier: 'project', content: 'Build with npm run build', memoryId: 'm-build' });
    await request('memory.retain', {
      scope,
      tier: 'project',
      content: 'Tests run with   npm test\n(jest, on Node 24)',
      tags: ['testing'],
      memoryId: 'm-test',
    });
    await request('memory.retain', {
      scope,
      tier: 'architecture',
      content: 'We chose SQLite for the embedded store',
      memoryId: 'm-sqlite',
    });
    await request('memory.retain', { scope: 'another-scope', tier: 'project', content: 'npm test is flaky here', memoryId: 'm-elsewhere' });
  });

  it('lists the memories recall picks for the query, best first, with their ids, from this scope only', async () => {
    const reply = await request('memory.reflect', { scope, query: 'how do I run npm test?' });
    expect(reply).toEqual({
      reflection: [
        '2 memories in scope project-reflect bear on "how do I run npm test?":',
        '- [m-test] (project) Tests run with npm test (jest, on Node 24)',
        '- [m-build] (project) Build with npm run build',
      ].join('\n'),
      memoryIds: ['m-test', 'm-build'],
    });
  });

  it('says so when nothing bears on the query, and writes nothing either way', async () => {
    const before = (await store.readAll()).length;
    expect(await request('memory.reflect', { scope, query: 'kubernetes ingress' })).toEqual({
      reflection: 'No memory in scope project-reflect bears on "kubernetes ingress".',
      memoryIds: [],
    });
    expect(await request('memory.reflect', { scope: 'empty-scope', query: 'anything' })).toMatchObject({ memoryIds: [] });
    await request('memory.reflect', { scope, query: 'sqlite store' });
    expect((await store.readAll()).length).toBe(before);
  });

  it('quotes each memory on one short line', async () => {
    await request('memory.retain', { scope: 'long', tier: 'project', content: `release ${'notes '.repeat(500)}`, memoryId: 'm-long' });
    const { reflection } = await request('memory.reflect', { scope: 'long', query: 'release' });
    const line = reflection.split('\n')[1];
    expect(line.startsWith('- [m-long] (project) release notes notes')).toBe(true);
    expect(line.length).toBeLessThan(240);
    expect(line.endsWith('…')).toBe(true);
  });

  it('refuses a malformed request at the edge with a structured error', async () => {
    await expect(request('memory.reflect', { scope: 'not a valid id!', query: ' ' })).rejects.toMatchObject({
      code: 'VALIDATION',
      issues: [{ path: ['scope'] }, { path: ['query'] }],
    });
  });
});
