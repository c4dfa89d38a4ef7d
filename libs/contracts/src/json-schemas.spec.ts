import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EVENT_TYPES, FEED_EVENT_TYPES, REQUEST_SUBJECTS, jsonSchemaFiles, renderSchemaFile } from './index';

const dir = join(__dirname, '..', '..', '..', 'contracts');
const walk = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));

describe('committed JSON Schemas', () => {
  const expected = jsonSchemaFiles();

  it('cover every event and both sides of every request subject', () => {
    for (const type of EVENT_TYPES) expect(expected).toHaveProperty([`events/${type}.schema.json`]);
    for (const type of FEED_EVENT_TYPES) expect(expected).toHaveProperty([`feed/v1/${type}.schema.json`]);
    for (const subject of REQUEST_SUBJECTS) {
      expect(expected).toHaveProperty([`subjects/${subject}.request.schema.json`]);
      expect(expected).toHaveProperty([`subjects/${subject}.reply.schema.json`]);
    }
  });

  it('are up to date with the zod schemas (run `npm run contracts` when this fails)', () => {
    const committed = Object.fromEntries(walk(dir).map((f) => [relative(dir, f), readFileSync(f, 'utf8')]));
    const generated = Object.fromEntries(Object.entries(expected).map(([path, schema]) => [path, renderSchemaFile(schema)]));
    expect(Object.keys(committed).sort()).toEqual(Object.keys(generated).sort());
    for (const path of Object.keys(generated)) expect({ path, body: committed[path] }).toEqual({ path, body: generated[path] });
  });
});
