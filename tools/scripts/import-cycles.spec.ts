import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const script = join(__dirname, 'import-cycles.cjs');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'stagecraft-cycles-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const check = () => spawnSync(process.execPath, [script, root], { encoding: 'utf8' });

describe('import-cycles', () => {
  it('prints a circle of type-only imports and fails', () => {
    write({
      'libs/a/src/leases.ts': "import { open } from './kv';\nexport interface Store { id: string }\nexport const make = open;\n",
      'libs/a/src/kv.ts': "import type { Store } from './leases';\nexport const open = (): Store => ({ id: 'x' });\n",
    });
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('libs/a/src/kv.ts -> libs/a/src/leases.ts -> libs/a/src/kv.ts');
  });

  it('follows @stagecraft/* imports across libs, services included', () => {
    write({
      'libs/a/src/index.ts': "export type { B } from '@stagecraft/b-service';\nexport interface A { n: number }\n",
      'libs/services/b/src/index.ts': "import type { A } from '@stagecraft/a';\nexport interface B { a: A }\n",
    });
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('libs/a/src/index.ts -> libs/services/b/src/index.ts -> libs/a/src/index.ts');
  });

  it('passes a tree without circles, where a lazy import() back is no edge and dist is not read', () => {
    write({
      'libs/a/src/chat.ts': "export const chat = async () => (await import('./resume')).resume;\nexport const shared = 1;\n",
      'libs/a/src/resume.ts': "import { shared } from './chat';\nexport const resume = shared;\n",
      'libs/a/dist/x.ts': "import './y';\n",
      'libs/a/dist/y.ts': "import './x';\n",
    });
    const result = check();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('no import circles among 2 files');
  });
});
