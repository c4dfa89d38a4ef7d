import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptedModelServer } from '@stagecraft/scripted-model';
import { Host } from '@stagecraft/service-shell';
import { readWriteAgentScript } from '@stagecraft/testing';
import { runToEnd, startEmbedded } from '@stagecraft/testing-system';

describe('the warmup prompt, embedded', () => {
  let server: ScriptedModelServer;
  let host: Host;
  let project: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, host, project, close } = await startEmbedded({
      script: readWriteAgentScript,
      dirPrefix: 'stagecraft-project-map-',
      readme: '# Sample\nA tiny project.\n',
    }));
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'main.ts'), 'export function start(): void {}\n');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sample', scripts: { test: 'jest' } }));
  });

  afterAll(() => close?.());

  it('shows the project map from the codebase index in warmup only', async () => {
    const runId = 'run-project-map';
    await runToEnd(host, { runId, message: 'Write notes about this project', projectRoot: project });
    const sent = server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);
    // The whole prompt: the system message and the stage's part after the history (docs/decisions/0052).
    const systemOf = (stage: string) =>
      sent
        .filter((r) => r.stage === stage)
        .map((r) =>
          (r.body.messages as { role: string; content: string }[])
            .filter((m) => m.role === 'system')
            .map((m) => m.content)
            .join('\n\n'),
        );
    const [warmup] = systemOf('warmup');
    expect(warmup).toContain('## Project map');
    expect(warmup).toContain('- src/ (1 file; typescript)');
    expect(warmup).toContain('- service_entry src/main.ts (src/main.ts)');
    expect(warmup).toContain('- script test → jest (package.json)');
    for (const system of systemOf('act')) expect(system).not.toContain('## Project map');
    const updates = (await host.ports.store!.readAll()).filter((e) => e.type === 'IndexUpdated');
    // The first index of the root (for the map), then the file the run wrote.
    expect(updates.map((e) => (e.data as { files: { path: string }[] }).files.map((f) => f.path))).toEqual([
      ['README.md', 'package.json', 'src/main.ts'],
      ['NOTES.md'],
    ]);
  });
});
