import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestOf, RequestSubject } from '@stagecraft/contracts';
import { Host, startHost } from '@stagecraft/service-shell';
import { memoryService } from '../index';

/**
 * An OpenAI-compatible `/embeddings` endpoint over HTTP whose vectors place words by topic: storage
 * words near each other, build words near each other. It records what it was asked.
 */
const TOPICS: Record<string, number> = { sqlite: 0, database: 0, persistence: 0, storage: 0, build: 1, compile: 1, bundle: 1 };
function vectorOf(text: string): number[] {
  const vector = [0, 0, 0.01];
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) if (word in TOPICS) vector[TOPICS[word]] += 1;
  return vector;
}

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };

let dir: string;
let server: Server;
let url: string;
const asked: { model: string; input: string[] }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stagecraft-hybrid-recall-'));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = JSON.parse(body) as { model: string; input: string[] };
      asked.push(request);
      const data = request.input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) }));
      res.writeHead(req.url === '/embeddings' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model: request.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function withHost(
  env: Record<string, string>,
  file: string,
  work: (request: <S extends RequestSubject>(s: S, d: RequestOf<S>) => Promise<unknown>) => Promise<void>,
) {
  const host: Host = await startHost({
    definitions: [memoryService],
    transport: 'inproc',
    store: `sqlite:${join(dir, file)}`,
    config,
    env,
  });
  try {
    await work((subject, data) => host.ports.requester.request(subject, data));
  } finally {
    await host.close();
  }
}

const memories = [
  { memoryId: 'm-db', content: 'SQLite keeps the events' },
  { memoryId: 'm-build', content: 'Compile with tsc before you bundle' },
  { memoryId: 'm-notes', content: 'Release notes live in CHANGELOG' },
];

async function retainAll(request: <S extends RequestSubject>(s: S, d: RequestOf<S>) => Promise<unknown>) {
  for (const m of memories) await request('memory.retain', { projectRoot: '/projects/hybrid', tier: 'project', tags: [], ...m });
}

describe('recall with embeddings', () => {
  it('finds a memory that shares meaning but no word with the query only when an embedding model is set', async () => {
    const query = 'which database gives persistence to the events?';
    await withHost({}, 'lexical.db', async (request) => {
      await retainAll(request);
      const reply = (await request('memory.recall', { projectRoot: '/projects/hybrid', query: 'database persistence', limit: 5 })) as {
        memories: { memoryId: string }[];
      };
      expect(reply.memories).toEqual([]);
    });
    expect(asked).toEqual([]);

    await withHost(
      { STAGECRAFT_EMBEDDING_MODEL: 'test-embedder', OPENAI_BASE_URL: url, OPENAI_API_KEY: 'test' },
      'hybrid.db',
      async (request) => {
        await retainAll(request);
        const reply = (await request('memory.recall', { projectRoot: '/projects/hybrid', query, limit: 2 })) as {
          memories: { memoryId: string; score: number }[];
        };
        // `m-db` shares "events" with the query and its meaning: both rankings put it first.
        expect(reply.memories.map((m) => m.memoryId)).toEqual(['m-db', expect.any(String)]);
        expect(reply.memories[0].score).toBeGreaterThan(reply.memories[1].score);
        const semanticOnly = (await request('memory.recall', {
          projectRoot: '/projects/hybrid',
          query: 'database persistence',
          limit: 1,
        })) as {
          memories: { memoryId: string }[];
        };
        expect(semanticOnly.memories.map((m) => m.memoryId)).toEqual(['m-db']);
      },
    );
    expect(asked[0]).toEqual({ model: 'test-embedder', input: [query, ...memories.map((m) => m.content)], encoding_format: 'float' });
    // Each memory is embedded once; later recalls send only the query.
    expect(asked[1].input).toEqual(['database persistence']);
  });

  it('answers with the lexical rank alone when the embeddings endpoint fails', async () => {
    await withHost(
      { STAGECRAFT_EMBEDDING_MODEL: 'test-embedder', OPENAI_BASE_URL: `${url}/missing`, OPENAI_API_KEY: 'test' },
      'broken.db',
      async (request) => {
        await retainAll(request);
        const reply = (await request('memory.recall', { projectRoot: '/projects/hybrid', query: 'release notes', limit: 5 })) as {
          memories: { memoryId: string }[];
        };
        expect(reply.memories.map((m) => m.memoryId)).toEqual(['m-notes']);
        const none = (await request('memory.recall', { projectRoot: '/projects/hybrid', query: 'database persistence', limit: 5 })) as {
          memories: unknown[];
        };
        expect(none.memories).toEqual([]);
      },
    );
  });
});
