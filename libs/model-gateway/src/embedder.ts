import OpenAI from 'openai';

/** Turns texts into vectors, one per text, in order. */
export interface Embedder {
  embed(texts: string[]): Promise<number[][]>;
}

/**
 * The embedder memory recall and index search use next to their lexical rank, when
 * `STAGECRAFT_EMBEDDING_MODEL` names a model: the OpenAI-compatible `/embeddings` endpoint at
 * `OPENAI_BASE_URL` (the one chat uses), with `OPENAI_API_KEY`. Without the model, search is lexical alone.
 */
export function embedderFromEnv(env: Readonly<Record<string, string | undefined>>): Embedder | undefined {
  const model = env['STAGECRAFT_EMBEDDING_MODEL']?.trim();
  if (!model) return undefined;
  const client = new OpenAI({
    baseURL: env['OPENAI_BASE_URL']?.trim() || 'https://api.openai.com/v1',
    // Local endpoints ignore the key, but the client insists on one.
    apiKey: env['OPENAI_API_KEY']?.trim() || 'unused',
  });
  return {
    async embed(texts) {
      const reply = await client.embeddings.create({ model, input: texts, encoding_format: 'float' });
      return [...reply.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    },
  };
}
