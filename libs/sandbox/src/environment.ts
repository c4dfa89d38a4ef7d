/** The service's own credentials and settings: never inside a sandbox, whatever the operator lists. */
export const isNeverPassed = (name: string): boolean => /^(OPENAI_|NATS_|STAGECRAFT_)/i.test(name);

export interface EnvironmentPlan {
  root: string;
  /** A writable directory that exists only for this call. */
  home: string;
  /** Where the service's `node` lives, so the sandbox runs the same Node. */
  nodeBinDir: string;
  passEnv: Readonly<Record<string, string>>;
}

/** Where commands are looked up: the service's Node first, then the project's tools, then the system. */
export function sandboxPath(root: string, nodeBinDir: string): string {
  return [nodeBinDir, `${root}/node_modules/.bin`, '/usr/local/bin', '/usr/bin', '/bin', '/usr/local/sbin', '/usr/sbin', '/sbin'].join(':');
}

/**
 * The whole environment of a sandboxed command, built from an allow-list rather than by removing
 * secrets from the service's environment: a variable nobody thought of stays out.
 */
export function sandboxEnvironment(plan: EnvironmentPlan): Record<string, string> {
  const passed = Object.entries(plan.passEnv).filter(([name]) => !isNeverPassed(name));
  return {
    ...Object.fromEntries(passed),
    PATH: sandboxPath(plan.root, plan.nodeBinDir),
    HOME: plan.home,
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    CI: 'true',
    NO_COLOR: '1',
  };
}
