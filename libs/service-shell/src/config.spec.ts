import { loadShellConfig } from './config';

describe('loadShellConfig', () => {
  it('applies defaults', () => {
    expect(loadShellConfig({})).toEqual({
      natsUrl: undefined,
      store: 'sqlite:.stagecraft/events.db',
      prefix: 'stagecraft',
      healthPort: 8080,
      requestTimeoutMs: 30000,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const config = loadShellConfig({
      NATS_URL: 'nats://a:4222,nats://b:4222',
      STAGECRAFT_STORE: 'kurrentdb://db:2113?tls=false',
      STAGECRAFT_SUBJECT_PREFIX: 'acme.stagecraft',
      STAGECRAFT_HEALTH_PORT: '9000',
      LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({ natsUrl: 'nats://a:4222,nats://b:4222', store: 'kurrentdb://db:2113?tls=false', prefix: 'acme.stagecraft', healthPort: 9000, logLevel: 'debug' });
  });

  it.each([
    ['STAGECRAFT_HEALTH_PORT', 'eighty'],
    ['STAGECRAFT_HEALTH_PORT', '70000'],
    ['NATS_URL', 'http://nats'],
    ['STAGECRAFT_STORE', 'postgres://db'],
    ['STAGECRAFT_SUBJECT_PREFIX', 'has space'],
    ['LOG_LEVEL', 'loud'],
  ])('names %s when it is %s', (name, value) => {
    expect(() => loadShellConfig({ [name]: value })).toThrow(new RegExp(`invalid configuration: ${name}`));
  });
});

it('treats an empty variable as unset', () => {
  expect(loadShellConfig({ NATS_URL: '', STAGECRAFT_HEALTH_PORT: '' })).toMatchObject({ natsUrl: undefined, healthPort: 8080 });
});
