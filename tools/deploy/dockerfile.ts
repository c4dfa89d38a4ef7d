export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  /** The image after ARG defaults are substituted, e.g. `node:24-bookworm-slim`. */
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Joins continuation lines and drops comments, so each entry is one instruction. */
export function dockerfileInstructions(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return logical
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** Build stages in order; ARGs declared before the first FROM fill `${NAME}` in FROM lines. */
export function dockerfileStages(text: string): Stage[] {
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const ins of dockerfileInstructions(text)) {
    if (ins.keyword === 'FROM') {
      const words = ins.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const from = words[0].replace(/\$\{?(\w+)\}?/g, (_, name: string) => globalArgs.get(name) ?? '');
      const asIndex = words.findIndex((w) => w.toUpperCase() === 'AS');
      stages.push({ from, name: asIndex >= 0 ? words[asIndex + 1] : undefined, instructions: [] });
    } else if (stages.length === 0 && ins.keyword === 'ARG') {
      const [name, value = ''] = ins.args.split('=');
      globalArgs.set(name, value);
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push(ins);
    }
  }
  return stages;
}

/** The user a stage runs as: its last USER, or root when it sets none. */
export function stageUser(stage: Stage): string {
  const users = stage.instructions.filter((i) => i.keyword === 'USER');
  return users.length > 0 ? users[users.length - 1].args.split(':')[0] : 'root';
}
