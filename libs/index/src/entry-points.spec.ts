import { MANIFESTS, pyprojectEntryPoints } from './entry-points';

describe('pyproject.toml entry points', () => {
  it('lists [project.scripts] and [project.gui-scripts] as bins running their module:function', () => {
    const source = [
      '[build-system]',
      'requires = ["hatchling"]',
      '',
      '[project]',
      'name = "demo"',
      'version = "1.0"',
      '',
      '[project.scripts]',
      'demo = "demo.cli:main"  # the command line',
      '"demo-admin" = \'demo.admin:run\'',
      '',
      '[ project . gui-scripts ]',
      'demo-gui = "demo.gui:start"',
      '',
      '[tool.ruff]',
      'line-length = "100"',
    ].join('\n');
    expect(pyprojectEntryPoints(source)).toEqual([
      { kind: 'bin', name: 'demo', detail: 'demo.cli:main' },
      { kind: 'bin', name: 'demo-admin', detail: 'demo.admin:run' },
      { kind: 'bin', name: 'demo-gui', detail: 'demo.gui:start' },
    ]);
  });

  it('reads dotted keys and an inline table under [project], and Poetry scripts', () => {
    const source = [
      '[project]',
      'name = "demo"',
      'scripts.serve = "demo.server:serve"',
      'gui-scripts = { viewer = "demo.viewer:main", "other-tool" = "demo.other:main" }',
      '[tool.poetry.scripts]',
      'poetry-cmd = "demo.poetry:main"',
    ].join('\r\n');
    expect(pyprojectEntryPoints(source)).toEqual([
      { kind: 'bin', name: 'serve', detail: 'demo.server:serve' },
      { kind: 'bin', name: 'viewer', detail: 'demo.viewer:main' },
      { kind: 'bin', name: 'other-tool', detail: 'demo.other:main' },
      { kind: 'bin', name: 'poetry-cmd', detail: 'demo.poetry:main' },
    ]);
  });

  it('lists nothing outside the script tables, and nothing from a file that is not TOML', () => {
    const source = [
      '[project]',
      'name = "demo"',
      'dependencies = ["requests"]',
      '[project.urls]',
      'home = "https://example.org"',
      '[[tool.mypy.overrides]]',
      'module = "x"',
      '[tool.hatch.scripts]',
      'not-a-console-script = "x:y"',
    ].join('\n');
    expect(pyprojectEntryPoints(source)).toEqual([]);
    expect(pyprojectEntryPoints('{"scripts": {"a": "b"}}\n\0\0[project.scripts\nx = ')).toEqual([]);
    expect(pyprojectEntryPoints(`[project.scripts]\nok = "a:b"\nbroken = { x = 1 }\n${'['.repeat(100_000)}`)).toEqual([
      { kind: 'bin', name: 'ok', detail: 'a:b' },
    ]);
  });

  it('is a manifest by its file name only, whatever other names a file has', () => {
    expect([...MANIFESTS.keys()]).toEqual(['package.json', 'pyproject.toml']);
    expect(MANIFESTS.get('constructor')).toBeUndefined();
    expect(MANIFESTS.get('pyproject.toml')?.('[project.scripts]\nrun = "m:f"\n')).toEqual([{ kind: 'bin', name: 'run', detail: 'm:f' }]);
  });
});
