import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../sqlite/sqlite-event-store';
import { describeProcessorRunner } from './start-processor.testing';

const dir = mkdtempSync(join(tmpdir(), 'stagecraft-processor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describeProcessorRunner('sqlite', () => createSqliteEventStore({ path: join(dir, `events-${(files += 1)}.db`) }));
