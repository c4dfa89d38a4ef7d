import { z } from 'zod';
import { API_ERROR_STATUSES, ApiError, ApiV1Route, apiV1Routes } from './v1';

type Json = Record<string, unknown>;

const schemaOf = (schema: z.ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
};

/** Query and path parameters, one per property of their object schema (query values arrive as text). */
function parametersOf(route: ApiV1Route): Json[] {
  const parameters: Json[] = [];
  const add = (schema: z.ZodType | undefined, where: 'path' | 'query') => {
    if (!schema) return;
    const json = schemaOf(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(json.properties ?? {}))
      parameters.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: property });
  };
  add(route.params, 'path');
  add(route.query, 'query');
  return parameters;
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

function operationOf(id: string, route: ApiV1Route): Json {
  const content = route.stream
    ? { 'text/event-stream': { schema: { type: 'string', description: 'id: position, event: type, data: this schema', 'x-event': schemaOf(route.reply, 'output') } } }
    : { 'application/json': { schema: schemaOf(route.reply, 'output') } };
  const errors = Object.fromEntries(
    API_ERROR_STATUSES.map((status) => [String(status), { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorReply' } } } }]),
  );
  return {
    operationId: id,
    summary: route.summary,
    security: [{ bearer: [] }],
    parameters: parametersOf(route),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } } } : {}),
    responses: { [String(route.status)]: { description: 'ok', content }, ...errors },
  };
}

/** The OpenAPI 3.1 document of the console API, generated from its zod schemas (contracts/api/openapi.json). */
export function apiV1OpenApi(version: string): Json {
  const paths: Record<string, Json> = {};
  for (const [id, route] of Object.entries(apiV1Routes) as [string, ApiV1Route][]) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(id, route) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Stagecraft console API', version, description: 'Runs, conversations, workflows, approvals and the live feed (docs/decisions/0062).' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      schemas: { ErrorReply: schemaOf(ApiError, 'output') },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'STAGECRAFT_API_TOKEN' } },
    },
  };
}
