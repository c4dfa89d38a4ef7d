import type { IndexLanguage } from '@stagecraft/contracts';

const BY_EXTENSION: Readonly<Record<string, IndexLanguage>> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin',
  swift: 'swift',
};

/** The languages whose definitions the index parses; every other file is listed as `other`. */
export const PARSED_LANGUAGES: readonly IndexLanguage[] = [
  'typescript',
  'tsx',
  'javascript',
  'python',
  'go',
  'rust',
  'java',
  'kotlin',
  'swift',
];

/** By extension alone; `.d.ts` declarations count as TypeScript. */
export function languageOf(path: string): IndexLanguage {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return 'other';
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? 'other';
}
