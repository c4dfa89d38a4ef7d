import type { DatabaseSync } from 'node:sqlite';
import { corruptStore } from './sqlite-errors';

/**
 * SQLite's `quick_check` when the file is opened: damaged pages are found before anything reads or
 * appends past them, and the store is refused (`CORRUPT`) instead of answering from half a log. It
 * reads every page once, without the index-to-table cross-check of `integrity_check`; measured in
 * docs/decisions/0037.
 */
export function checkIntegrity(db: DatabaseSync, path: string): void {
  const rows = db.prepare('PRAGMA quick_check(10)').all() as { quick_check: string }[];
  const problems = rows.map((r) => r.quick_check).filter((message) => message !== 'ok');
  if (problems.length > 0) throw corruptStore(new Error(problems[0]), `at ${path}: restore it from a backup`, problems);
}
