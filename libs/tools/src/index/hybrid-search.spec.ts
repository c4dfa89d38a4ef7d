import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexView, applyIndexUpdate, emptyIndex, searchIndex } from '@stagecraft/index';
import { indexProject } from './build';
import { hybridSearch, searchIndexTool } from './index-tools';

/**
 * A small deterministic embedding: each dimension is a concept, and a text points along the concepts
 * its words name. Enough to tell whether ranking by meaning finds what no query word spells.
 */
const CONCEPTS: Record<string, string[]> = {
  login: ['login', 'authenticate', 'signin', 'credentials', 'password'],
  money: ['invoice', 'payment', 'billing', 'charge'],
  disk: ['file', 'write', 'save', 'persist'],
};
const embed = async (texts: string[]) =>
  texts.map((text) => {
    const words = text
      .toLowerCase()
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z]+/);
    return Object.values(CONCEPTS).map((names) => words.filter((w) => names.some((n) => w.startsWith(n))).length);
  });

describe('search_index with embeddings', () => {
  let root: string;
  let view: IndexView;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'stagecraft-hybrid-'));
    writeFileSync(
      join(root, 'auth.ts'),
      '/** Checks a user name and password against the store. */\nexport function authenticateUser(name: string, password: string) {\n  return name.length > 0 && password.length > 0;\n}\n',
    );
    writeFileSync(
      join(root, 'billing.ts'),
      '/** Sends the invoice for a payment. */\nexport function sendInvoice(total: number) {\n  return total;\n}\n',
    );
    writeFileSync(join(root, 'store.ts'), '/** Writes the user to disk. */\nexport function saveUser(name: string) {\n  return name;\n}\n');
    view = applyIndexUpdate(emptyIndex(), await indexProject(root, undefined));
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds by meaning what no query word spells, where words alone find nothing', async () => {
    expect(searchIndex(view, 'user signin credentials')).toEqual([]);
    const hits = await hybridSearch(view, 'user signin credentials', 3, embed);
    expect(hits[0]?.symbol?.name).toBe('authenticateUser');
  });

  it('keeps the lexical ranking where the words match, and ranks by meaning among the rest', async () => {
    const hits = await hybridSearch(view, 'user', 3, embed);
    expect(hits.map((h) => h.symbol?.name).sort()).toEqual(['authenticateUser', 'saveUser']);
  });

  it('falls back to words alone when the embedder fails, saying so', async () => {
    const progress: string[] = [];
    const outcome = await searchIndexTool(
      { query: 'sendInvoice', maxResults: 5 },
      {
        root,
        allowedCommands: [],
        progress: (m) => progress.push(m),
        index: async () => view,
        embed: async () => {
          throw new Error('no embeddings here');
        },
      },
    );
    expect(outcome).toMatchObject({ ok: true, output: expect.stringContaining('function sendInvoice') });
    expect(progress).toEqual([expect.stringContaining('ranking by meaning failed (no embeddings here)')]);
  });
});
