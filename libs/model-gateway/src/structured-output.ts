import { APIError } from 'openai';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import { z } from 'zod';
import { StagecraftError } from '@stagecraft/contracts';

/** A reply asked to match a schema: `name` labels it for the endpoint (letters, digits, `_`, `-`). */
export interface StructuredOutput {
  name: string;
  schema: z.ZodType;
}

/**
 * What became of a call's request for structured output: `json_schema` sent and accepted; `refused` the
 * endpoint refused it, so the same request was sent again without it; `off` not sent, because this
 * endpoint and model refused it earlier in the process.
 */
export type StructuredOutcome = 'json_schema' | 'refused' | 'off';

// Keywords OpenAI's strict mode rejects; the caller's own parse still checks what they said.
const UNSUPPORTED = new Set(['$schema', 'default', 'minLength', 'maxLength', 'minItems', 'maxItems', 'format', 'pattern']);

/**
 * The zod schema as OpenAI's strict mode accepts it: every object closed (`additionalProperties: false`)
 * with every property required, an optional property made nullable instead, and keywords strict mode
 * refuses dropped. The reply is therefore looser than the zod schema; callers parse it with their own.
 */
export function strictJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return strictNode(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as Record<string, unknown>;
}

function strictNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictNode);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (!UNSUPPORTED.has(key)) out[key] = strictNode(value);
  if (out.type === 'object' && out.properties !== undefined) {
    const properties = out.properties as Record<string, unknown>;
    const required = new Set((out.required as string[] | undefined) ?? []);
    for (const name of Object.keys(properties)) if (!required.has(name)) properties[name] = { anyOf: [properties[name], { type: 'null' }] };
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

/** An object with keys of its own choosing (a `z.record`): strict mode cannot hold one. */
function hasOpenMap(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasOpenMap);
  if (node === null || typeof node !== 'object') return false;
  const { additionalProperties } = node as { additionalProperties?: unknown };
  if (additionalProperties !== undefined && additionalProperties !== false) return true;
  return Object.values(node).some(hasOpenMap);
}

/** Strict where the schema allows it; a schema with an open map is sent non-strict (the endpoint's best effort). */
export function responseFormatOf(structured: StructuredOutput): ResponseFormatJSONSchema {
  let formats = formatsBySchema.get(structured.schema);
  if (!formats) formatsBySchema.set(structured.schema, (formats = new Map()));
  const known = formats.get(structured.name);
  if (known) return known;
  const schema = strictJsonSchema(structured.schema);
  const format: ResponseFormatJSONSchema = {
    type: 'json_schema',
    json_schema: { name: structured.name, schema, strict: !hasOpenMap(schema) },
  };
  formats.set(structured.name, format);
  return format;
}

/**
 * Each schema's format, built once: converting a zod schema to JSON Schema cost about as much as the rest
 * of the reviewer's request. Schemas are module constants, so the map stays small; the formats are shared and
 * never changed (the client serialises them).
 */
const formatsBySchema = new WeakMap<z.ZodType, Map<string, ResponseFormatJSONSchema>>();

const NAMES_STRUCTURED_OUTPUT = /response_format|json_schema|structured output|json mode/i;

/**
 * The endpoint (or the model behind it) does not do structured output: a 400 (422 for some servers)
 * whose message names it. Any other failure is the call's own and is not retried without it.
 */
export function refusesStructuredOutput(error: unknown): boolean {
  const cause = error instanceof StagecraftError ? (error as { cause?: unknown }).cause : error;
  if (!(cause instanceof APIError)) return false;
  return (cause.status === 400 || cause.status === 422) && NAMES_STRUCTURED_OUTPUT.test(cause.message);
}
