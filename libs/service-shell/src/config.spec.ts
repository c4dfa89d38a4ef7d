import { loadShellConfig } from './config';

describe('loadShellConfig', () => {
  it('applies defaults', () => {
    expect(loadShellConfig({})).toEqual({
      natsUrl: undefined,
      natsAuth: {},
      store: 'sqlite:.stagecraft/events.db',
      prefix: 'stagecraft',
      healthPort: 8080,
      healthHost: '127.0.0.1',
      projectRoots: undefined,
      requestTimeoutMs: 30000,
      natsConnectTimeoutMs: 60000,
      shutdownTimeoutMs: 20000,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const config = loadShellConfig({
      NATS_URL: 'nats://a:4222,nats://b:4222',
      STAGECRAFT_STORE: 'kurrentdb://db:2113?tls=false',
      STAGECRAFT_SUBJECT_PREFIX: 'acme.stagecraft',
      STAGECRAFT_HEALTH_PORT: '9000',
      STAGECRAFT_NATS_CONNECT_TIMEOUT_MS: '0',
      STAGECRAFT_SHUTDOWN_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({
      natsConnectTimeoutMs: 0,
      shutdownTimeoutMs: 5000,
      natsUrl: 'nats://a:4222,nats://b:4222',
      store: 'kurrentdb://db:2113?tls=false',
      prefix: 'acme.stagecraft',
      healthPort: 9000,
      logLevel: 'debug',
    });
  });

  it.each([
    ['STAGECRAFT_HEALTH_PORT', 'eighty'],
    ['STAGECRAFT_HEALTH_PORT', '70000'],
    ['STAGECRAFT_NATS_CONNECT_TIMEOUT_MS', '-1'],
    ['STAGECRAFT_SHUTDOWN_TIMEOUT_MS', 'soon'],
    ['NATS_URL', 'http://nats'],
    ['STAGECRAFT_STORE', 'postgres://db'],
    ['STAGECRAFT_SUBJECT_PREFIX', 'has space'],
    ['LOG_LEVEL', 'loud'],
    ['STAGECRAFT_PROJECT_ROOTS', '/a:work'],
    ['STAGECRAFT_HEALTH_HOST', 'bad host'],
  ])('names %s when it is %s', (name, value) => {
    expect(() => loadShellConfig({ [name]: value })).toThrow(new RegExp(`invalid configuration: ${name}`));
  });
});

it('treats an empty variable as unset', () => {
  expect(loadShellConfig({ NATS_URL: '', STAGECRAFT_HEALTH_PORT: '' })).toMatchObject({ natsUrl: undefined, healthPort: 8080 });
});

describe('project roots', () => {
  it('reads one or more absolute roots separated like PATH', () => {
    expect(loadShellConfig({ STAGECRAFT_PROJECT_ROOTS: '/workspace' }).projectRoots).toEqual(['/workspace']);
    expect(loadShellConfig({ STAGECRAFT_PROJECT_ROOTS: '/a:/b/c:' }).projectRoots).toEqual(['/a', '/b/c']);
  });

  it('still reads the singular name, the plural winning when both are set', () => {
    expect(loadShellConfig({ STAGECRAFT_PROJECT_ROOT: '/old' }).projectRoots).toEqual(['/old']);
    expect(loadShellConfig({ STAGECRAFT_PROJECT_ROOT: '/old', STAGECRAFT_PROJECT_ROOTS: '/new' }).projectRoots).toEqual(['/new']);
  });

  it('refuses relative roots, naming the variable', () => {
    expect(() => loadShellConfig({ STAGECRAFT_PROJECT_ROOTS: '/a:work' })).toThrow(
      'invalid configuration: STAGECRAFT_PROJECT_ROOTS: entries must be absolute paths',
    );
  });
});

it('binds probes to loopback unless told otherwise', () => {
  expect(loadShellConfig({}).healthHost).toBe('127.0.0.1');
  expect(loadShellConfig({ STAGECRAFT_HEALTH_HOST: '0.0.0.0' }).healthHost).toBe('0.0.0.0');
});

it('takes credentials out of NATS_URL: the address it keeps is safe to print', () => {
  const config = loadShellConfig({ NATS_URL: 'nats://qa:s3cret@nats:4222' });
  expect(config.natsUrl).toBe('nats://nats:4222');
  expect(config.natsAuth).toEqual({ user: 'qa', pass: 's3cret', inboxPrefix: '_INBOX_qa' });
});

it('stops at start-up on a NATS file it cannot read, naming the variable', () => {
  expect(() => loadShellConfig({ NATS_URL: 'nats://nats:4222', NATS_CREDS: '/nonexistent/service.creds' })).toThrow(
    /invalid configuration: NATS_CREDS: cannot read \/nonexistent\/service.creds/,
  );
});
