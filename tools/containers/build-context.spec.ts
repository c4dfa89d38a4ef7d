import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildConfigs, buildContextFilter, contextSources, dockerfileStages, globalArgNames, tsconfigClosure } from '../deploy/dockerfile';
import { readText, repoRoot } from '../deploy/manifests';

/**
 * What the image build reads must be in the build context: a config the build needs but
 * .dockerignore keeps out fails only inside `podman build`, minutes in, with TS5083.
 */
describe('the image build context', () => {
  const dockerfile = readText('Dockerfile');
  const stages = dockerfileStages(dockerfile);
  const inContext = buildContextFilter(readText('.dockerignore'));
  const scripts = (JSON.parse(readText('package.json')) as { scripts: Record<string, string> }).scripts;

  it('follows .dockerignore the way Docker does: sources in, host builds and tools out', () => {
    expect(['apps/cli/src/main.ts', 'libs/contracts/tsconfig.json', 'prompts', 'package.json'].filter(inContext)).toHaveLength(4);
    expect(
      ['apps/cli/dist/main.js', 'node_modules/zod/package.json', 'tools/bench/tsconfig.json', 'libs/run/src/run.spec.ts'].filter(inContext),
    ).toEqual([]);
  });

  it('builds TypeScript with a config that the context holds, and every config that one reads', () => {
    const configs = stages.flatMap((stage) => buildConfigs(stage, scripts));
    expect(configs.length).toBeGreaterThan(0);
    const read = configs.flatMap((config) => tsconfigClosure(repoRoot, config));
    const missing = read.filter((path) => !existsSync(join(repoRoot, path)) || !inContext(path));
    expect(missing).toEqual([]);
    // The apps are what the image runs; the closure must reach each one's config.
    for (const app of ['cli', 'conversation', 'policy', 'prompt-assembly', 'tool-execution', 'qa', 'memory'])
      expect(read).toContain(`apps/${app}/tsconfig.json`);
  });

  // The image runs no tests: the tools and the spec-only fixture that hosts every service are left out.
  const notInImage = (path: string) => path.startsWith('tools/') || path === 'libs/testing-system';

  it('builds every project the workspace build does, except tools/ and the spec-only testing system', () => {
    const paths = (file: string) => (JSON.parse(readText(file)) as { references: { path: string }[] }).references.map((r) => r.path);
    expect(paths('tsconfig.image.json')).toEqual(paths('tsconfig.build.json').filter((path) => !notInImage(path)));
  });

  it('copies from the context only paths that exist and that .dockerignore lets in', () => {
    const sources = stages.flatMap(contextSources);
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((path) => path !== '.' && (!existsSync(join(repoRoot, path)) || !inContext(path)))).toEqual([]);
  });

  it('takes its base image as a build argument that every stage starts from', () => {
    expect(globalArgNames(dockerfile)).toEqual(['BASE_IMAGE']);
    const bases = stages.map((s) => s.from).filter((from) => !stages.some((other) => other.name === from));
    expect(new Set(bases)).toEqual(new Set(['node:24-bookworm-slim']));
  });
});

describe('the check itself', () => {
  it('names a referenced config that .dockerignore keeps out', () => {
    const inContext = buildContextFilter('*\n!apps/\n!libs/\n!tsconfig.build.json\n');
    const stage = dockerfileStages('FROM x AS build\nRUN npm run build\n')[0];
    const configs = buildConfigs(stage, { build: 'tsc -b tsconfig.build.json' });
    expect(configs).toEqual(['tsconfig.build.json']);
    const read = tsconfigClosure(repoRoot, configs[0]);
    expect(read).toContain('tools/bench/tsconfig.json');
    expect(read.filter((path) => !inContext(path))).toContain('tools/bench/tsconfig.json');
  });
});
