import { oneLine } from './conversation';

export const NOTES_FILE = 'STAGECRAFT_NOTES.md';

/** Entries of a `list_dir` result (`ls -F` style), without its bracketed notes such as truncation. */
export function listedEntries(listing: string): string[] {
  return listing
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('['));
}

/** Directories end in `/` and symlinks in `@`; everything else is a file. */
export function listedFiles(listing: string): string[] {
  return listedEntries(listing).filter((line) => !/[/@]$/.test(line));
}

const MANIFESTS = ['package.json', 'pyproject.toml', 'Cargo.toml', 'go.mod', 'pom.xml', 'build.gradle', 'Gemfile', 'composer.json'];

/** The file most likely to say what the project is: a README, any markdown, a manifest, else the first file. */
export function describingFile(listing: string): string | null {
  const files = listedFiles(listing).filter((file) => file !== NOTES_FILE);
  const base = (file: string) => file.split('/').pop() ?? file;
  const depth = (file: string) => file.split('/').length;
  const shallowFirst = (a: string, b: string) => depth(a) - depth(b);
  const readme = files.filter((file) => /^readme(\.[a-z]+)?$/i.test(base(file))).sort(shallowFirst);
  const markdown = files.filter((file) => /\.md$/i.test(file)).sort(shallowFirst);
  const manifest = files.filter((file) => MANIFESTS.includes(base(file))).sort(shallowFirst);
  return readme[0] ?? markdown[0] ?? manifest[0] ?? files[0] ?? null;
}

export interface FileSummary {
  path: string;
  lines: number;
  title: string;
  opening: string[];
}

export function summarise(path: string, text: string): FileSummary {
  const lines = text.split(/\r?\n/);
  const meaningful = lines.map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('```') && !line.startsWith('['));
  const heading = meaningful.find((line) => line.startsWith('#'));
  return {
    path,
    lines: text.endsWith('\n') ? lines.length - 1 : lines.length,
    title: oneLine((heading ?? meaningful[0] ?? '(empty)').replace(/^#+\s*/, ''), 100),
    opening: meaningful
      .filter((line) => line !== heading)
      .slice(0, 5)
      .map((line) => oneLine(line, 160)),
  };
}

export function notesContent(userInput: string, entries: string[], summary: FileSummary | null): string {
  const shown = entries.slice(0, 20);
  const more = entries.length > shown.length ? ` and ${entries.length - shown.length} more` : '';
  const listing = entries.length === 0 ? 'The project root is empty.' : `${entries.length} entries: ${shown.join(', ')}${more}.`;
  const lines = [
    '# Stagecraft notes',
    '',
    `Request: ${userInput === '' ? '(none given)' : userInput}`,
    '',
    '## Project root',
    '',
    listing,
    '',
  ];
  if (summary) {
    lines.push(`## ${summary.path}`, '', `- ${summary.lines} lines`, `- Title: ${summary.title}`);
    if (summary.opening.length > 0) lines.push('- Opening lines:', ...summary.opening.map((line) => `  > ${line}`));
  } else lines.push('No README or other describing file was found; these notes rest on the listing alone.');
  lines.push('', 'These notes were written by the scripted demo model that Stagecraft uses when no model endpoint is configured.', '');
  return lines.join('\n');
}
