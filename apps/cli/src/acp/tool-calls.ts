import { isAbsolute, join } from 'node:path';
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';

/** How an editor should show each of our tools (its icon and grouping). */
const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  read_tool_output: 'read',
  list_dir: 'search',
  search_code: 'search',
  find_symbol: 'search',
  list_entry_points: 'search',
  search_index: 'search',
  write_file: 'edit',
  apply_patch: 'edit',
  run_command: 'execute',
  memory_recall: 'fetch',
  memory_retain: 'think',
  memory_reflect: 'think',
};

export const toolKind = (tool: string): ToolKind => KINDS[tool] ?? 'other';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** One line for the call: the tool and its target, never the whole arguments (a file's content, a patch). */
export function toolTitle(tool: string, args: Record<string, unknown>): string {
  const target =
    text(args['path']) ??
    text(args['query']) ??
    text(args['pattern']) ??
    text(args['symbol']) ??
    (tool === 'run_command' ? [text(args['command']), ...(Array.isArray(args['args']) ? args['args'] : [])].join(' ') : undefined) ??
    (tool === 'apply_patch' ? patchedPaths(text(args['patch']) ?? '').join(', ') : undefined);
  const line = target ? `${tool} ${target}` : tool;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The files a unified diff names (`+++ b/path`). */
export function patchedPaths(patch: string): string[] {
  return [...patch.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)].map((m) => m[1]).filter((p) => p !== '/dev/null');
}

/** The files a call touches, as absolute paths under the project root (with the line, when the call names one). */
export function toolLocations(projectRoot: string, tool: string, args: Record<string, unknown>): ToolCallLocation[] {
  const under = (path: string) => (isAbsolute(path) ? path : join(projectRoot, path));
  const line = typeof args['line'] === 'number' ? args['line'] : typeof args['startLine'] === 'number' ? args['startLine'] : undefined;
  const path = text(args['path']);
  if (tool === 'apply_patch') return patchedPaths(text(args['patch']) ?? '').map((p) => ({ path: under(p) }));
  if (path === undefined || tool === 'run_command') return [];
  return [{ path: under(path), ...(line !== undefined && { line }) }];
}
