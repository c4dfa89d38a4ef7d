import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';
import { findPromptViolations, lineAt } from './prompt-guard';
import { createPromptRepository, PromptRepository } from './repository';

const RULE_TEXT = { mode_switch: 'suggests switching mode', optional_reasoning: 'leaves reasoning to the model' } as const;

/**
 * The lib's only I/O: every `*.md` under `dir` becomes a prompt whose id is its relative path without `.md`.
 * A custom directory (`STAGECRAFT_PROMPTS_DIR`) is checked like the shipped one: a file that breaks the
 * prompt guard (seed 002 §2.1, §2.2) fails the load, naming the file and line.
 */
export function loadPromptDirectory(dir: string): PromptRepository {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => ({ file: file.split(sep).join('/'), body: readFileSync(join(dir, file), 'utf8') }));
  const violations = files.flatMap(({ file, body }) =>
    findPromptViolations(body).map((v) => ({
      path: [file, lineAt(body, v.index)],
      message: `line ${lineAt(body, v.index)}: ${RULE_TEXT[v.rule]} ("${v.match}")`,
      code: v.rule,
    })),
  );
  if (violations.length > 0) {
    const [first] = violations;
    throw new StagecraftError(
      'VALIDATION',
      `prompt guard: ${first.path[0]} ${first.message}${violations.length > 1 ? ` (and ${violations.length - 1} more)` : ''} in ${dir}`,
      violations,
    );
  }
  return createPromptRepository(files.map(({ file, body }) => ({ id: file.slice(0, -'.md'.length), body })));
}
