import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { createPromptRepository, PromptRepository } from './repository';

/** The lib's only I/O: every `*.md` under `dir` becomes a prompt whose id is its relative path without `.md`. */
export function loadPromptDirectory(dir: string): PromptRepository {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .sort();
  return createPromptRepository(
    files.map((file) => ({ id: file.slice(0, -'.md'.length).split(sep).join('/'), body: readFileSync(join(dir, file), 'utf8') })),
  );
}
