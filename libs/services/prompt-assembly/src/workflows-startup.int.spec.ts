import 'reflect-metadata';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '@stagecraft/service-shell';
import { DEFAULT_WORKFLOWS_DIR, promptAssemblyService } from './index';

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };
let dir: string;
const start = () =>
  startHost({
    definitions: [promptAssemblyService],
    transport: 'inproc',
    store: 'memory:',
    config,
    env: { STAGECRAFT_WORKFLOWS_DIR: dir },
  });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stagecraft-workflows-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const step = { id: 'ask', title: 'Ask', prompt: 'Describe the feature.' };
const workflow = { id: 'spec', name: 'Spec', description: 'Writes a spec.', version: '1.0.0', steps: [step] };

describe('prompt-assembly start-up', () => {
  it('starts despite an invalid workflow file, serves the others, and names the file and field when the bad one is asked for', async () => {
    writeFileSync(join(dir, 'spec.json'), JSON.stringify({ ...workflow, steps: [{ ...step, agentRole: 'x'.repeat(1_025) }] }));
    writeFileSync(join(dir, 'review.json'), JSON.stringify({ ...workflow, id: 'review' }));
    const host = await start();
    try {
      await expect(host.ports.requester.request('workflow.next', { workflowId: 'review' })).resolves.toMatchObject({ step });
      await expect(host.ports.requester.request('workflow.next', { workflowId: 'spec' })).rejects.toMatchObject({
        code: 'VALIDATION',
        message: expect.stringContaining(
          `invalid workflow ${join(dir, 'spec.json')}: steps[0].agentRole: Too big: expected string to have <=1024 characters`,
        ),
      });
    } finally {
      await host.close();
    }
  });

  it('serves the workflows of the directory it was pointed at', async () => {
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(workflow));
    const host = await start();
    try {
      await expect(host.ports.requester.request('workflow.next', { workflowId: 'spec' })).resolves.toEqual({
        step,
        guidance: { prompt: step.prompt },
        isComplete: false,
      });
      await expect(host.ports.requester.request('workflow.next', { workflowId: 'code-review' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    } finally {
      await host.close();
    }
  });

  it('defaults to the workflows/ directory at the root of the repository', () => {
    expect(readdirSync(DEFAULT_WORKFLOWS_DIR)).toEqual(expect.arrayContaining(['code-review.json', 'feature-specification.json']));
    expect(existsSync(join(DEFAULT_WORKFLOWS_DIR, '..', 'tsconfig.build.json'))).toBe(true);
  });
});
