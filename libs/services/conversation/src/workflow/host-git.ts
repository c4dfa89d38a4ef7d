import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where git is looked up: the system's directories, never the service's PATH. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Git reads commands to run from the repository (hooks, `core.fsmonitor`, filter drivers), and a model
 * can write into a project: on the host, git runs nothing but itself. These settings outrank the
 * repository's config; `-c` also reaches the git processes git starts (GIT_CONFIG_PARAMETERS).
 */
const NOTHING_BUT_GIT = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.editor=false',
  'core.askPass=',
  'credential.helper=',
  'core.attributesFile=/dev/null',
  'protocol.allow=never',
  'submodule.recurse=false',
  'gc.auto=0',
  'maintenance.auto=false',
].flatMap((setting) => ['-c', setting]);

/**
 * The whole environment git gets, built from nothing: no API key, bus credential or other secret of
 * the service reaches it or anything it could start. No system or global config is read (an
 * operator's `~/.gitconfig` may name helpers too), HOME leads nowhere, and discovery stops at `cwd`,
 * so a repository above the project root is never used.
 */
export function hostGitEnvironment(cwd: string): Record<string, string> {
  return {
    PATH: SYSTEM_PATH,
    HOME: '/nonexistent',
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_CEILING_DIRECTORIES: dirname(cwd),
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: 'false',
  };
}

/** A config setting as a key and a value kept apart: a key read from a repository may contain `=`. */
export type GitSetting = readonly [key: string, value: string];

/**
 * Runs `git -C cwd …args` on the host with NOTHING_BUT_GIT and hostGitEnvironment; every git the
 * services run goes through here. `settings` are passed as GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n.
 */
export function hostGit(cwd: string, args: readonly string[], settings: readonly GitSetting[] = []) {
  const env = hostGitEnvironment(cwd);
  settings.forEach(([key, value], n) => {
    env[`GIT_CONFIG_KEY_${n}`] = key;
    env[`GIT_CONFIG_VALUE_${n}`] = value;
  });
  if (settings.length > 0) env.GIT_CONFIG_COUNT = String(settings.length);
  const pending = run('git', [...NOTHING_BUT_GIT, '-C', cwd, ...args], { env, maxBuffer: 64 * 1024 * 1024 });
  // Nothing to read on stdin: anything that would wait for an answer gets end of file instead.
  pending.child.stdin?.end();
  return pending;
}

/**
 * Settings that switch off every filter driver the repository's own config names (a `.gitattributes`
 * in the tree picks the driver, the config says what it runs): a checkout on the host writes the
 * stored blobs as they are. Reading config with `--get-regexp` runs nothing.
 */
export async function filtersOff(cwd: string): Promise<GitSetting[]> {
  const { stdout } = await hostGit(cwd, ['config', '--null', '--name-only', '--get-regexp', '^filter\\.']).catch(() => ({ stdout: '' }));
  const drivers = new Set(
    stdout
      .split('\0')
      .filter((key) => key.startsWith('filter.'))
      .map((key) => key.slice('filter.'.length, key.lastIndexOf('.'))),
  );
  return [...drivers].flatMap((driver): GitSetting[] =>
    ['clean', 'smudge', 'process', 'required'].map((name) => [`filter.${driver}.${name}`, name === 'required' ? 'false' : '']),
  );
}
