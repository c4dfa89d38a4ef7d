import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const libs = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, dir, d.name, 'src', 'index.ts')))
    .map((d) => join(dir, d.name, 'src', 'index.ts'));

/** A newcomer opens a lib at its index: the first line says what the lib is for. */
describe("each lib's index.ts", () => {
  it.each([...libs('libs'), ...libs(join('libs', 'services'))])('%s opens with one line saying what it is for', (file) => {
    const first = readFileSync(join(ROOT, file), 'utf8').split('\n')[0];
    expect(first).toMatch(/^\/\*\* [A-Z].{20,}\. \*\/$/);
  });
});
