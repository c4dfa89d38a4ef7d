import { z } from 'zod';
import { responseFormatOf, strictJsonSchema } from './structured-output';

describe('strictJsonSchema', () => {
  it('closes every object, requires every property, and makes the optional ones nullable', () => {
    const schema = z.object({
      verdict: z.enum(['pass', 'concerns']),
      findings: z.array(z.object({ message: z.string().min(1), file: z.string().optional() })).default([]),
    });
    expect(strictJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        verdict: { type: 'string', enum: ['pass', 'concerns'] },
        findings: {
          anyOf: [
            {
              type: 'array',
              items: {
                type: 'object',
                properties: { message: { type: 'string' }, file: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
                required: ['message', 'file'],
                additionalProperties: false,
              },
            },
            { type: 'null' },
          ],
        },
      },
      required: ['verdict', 'findings'],
      additionalProperties: false,
    });
  });

  it('keeps a schema that is already strict as it is, descriptions included', () => {
    const schema = z.object({ reasoning: z.string().describe('the block'), file: z.string().nullable() });
    expect(strictJsonSchema(schema)).toEqual({
      type: 'object',
      properties: { reasoning: { type: 'string', description: 'the block' }, file: { type: ['string', 'null'] } },
      required: ['reasoning', 'file'],
      additionalProperties: false,
    });
  });

  it('is sent strict unless the schema holds an open map, which strict mode cannot take', () => {
    const closed = responseFormatOf({ name: 'closed', schema: z.object({ a: z.string() }) });
    const open = responseFormatOf({ name: 'open', schema: z.object({ byFile: z.record(z.string(), z.string()) }) });
    expect([closed.json_schema.strict, open.json_schema.strict]).toEqual([true, false]);
  });
});
