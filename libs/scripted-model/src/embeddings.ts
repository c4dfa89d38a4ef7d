import { createHash } from 'node:crypto';

export const DEFAULT_EMBEDDING_DIMENSIONS = 64;

/**
 * A unit vector derived only from the text: equal texts get equal vectors, different texts
 * practically never do. Values are rounded to float32 so the float and base64 encodings agree.
 */
export function embeddingVector(text: string, dimensions: number): number[] {
  const raw: number[] = [];
  for (let block = 0; raw.length < dimensions; block += 1) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest();
    for (let i = 0; i + 1 < digest.length && raw.length < dimensions; i += 2) raw.push(digest.readUInt16BE(i) / 32767.5 - 1);
  }
  const norm = Math.sqrt(raw.reduce((sum, v) => sum + v * v, 0)) || 1;
  return raw.map((v) => Math.fround(v / norm));
}

/** OpenAI accepts a string, an array of strings, or token arrays; tokens are hashed as their JSON text. */
export function embeddingInputs(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === 'number')) return [JSON.stringify(input)];
  if (Array.isArray(input)) return input.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  return [JSON.stringify(input ?? '')];
}

export function embeddingsJson(body: { input?: unknown; model?: unknown; dimensions?: unknown; encoding_format?: unknown }) {
  const dimensions =
    typeof body.dimensions === 'number' && body.dimensions > 0 ? Math.floor(body.dimensions) : DEFAULT_EMBEDDING_DIMENSIONS;
  const inputs = embeddingInputs(body.input);
  const tokens = inputs.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
  return {
    object: 'list',
    data: inputs.map((text, index) => {
      const vector = embeddingVector(text, dimensions);
      return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? toBase64(vector) : vector };
    }),
    model: typeof body.model === 'string' ? body.model : 'scripted-embedding',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** The wire form of `encoding_format: 'base64'`: little-endian float32s. */
function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}
