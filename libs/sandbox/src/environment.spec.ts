import { sandboxEnvironment } from './environment';

describe('sandboxEnvironment', () => {
  const plan = { root: '/work/project', home: '/tmp/sandbox-home', nodeBinDir: '/opt/node/bin', passEnv: {} };

  it('is the allow-list and nothing else', () => {
    expect(sandboxEnvironment(plan)).toEqual({
      PATH: '/opt/node/bin:/work/project/node_modules/.bin:/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin',
      HOME: '/tmp/sandbox-home',
      TMPDIR: '/tmp',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TERM: 'dumb',
      CI: 'true',
      NO_COLOR: '1',
    });
  });

  it("adds the operator's variables, but never the service's own, and never over a built-in one", () => {
    const env = sandboxEnvironment({
      ...plan,
      passEnv: { GOPATH: '/go', OPENAI_API_KEY: 'sk-x', nats_url: 'nats://x', STAGECRAFT_STORE: 'sqlite:x', HOME: '/root' },
    });
    expect(env.GOPATH).toBe('/go');
    expect(env.HOME).toBe('/tmp/sandbox-home');
    expect(Object.keys(env).filter((name) => /OPENAI|NATS|STAGECRAFT/i.test(name))).toEqual([]);
  });
});
