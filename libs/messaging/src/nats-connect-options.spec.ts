import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsConnectOptions, natsTargetFromEnv, splitNatsUrl } from './nats-connect-options';

describe('splitNatsUrl', () => {
  it('takes credentials out of the addresses', () => {
    expect(splitNatsUrl('nats://u:p%40ss@a:4222,nats://u:p%40ss@b:4222')).toEqual({
      servers: 'nats://a:4222,nats://b:4222',
      user: 'u',
      pass: 'p@ss',
    });
    expect(splitNatsUrl('tls://tok@a:4222')).toEqual({ servers: 'tls://a:4222', token: 'tok' });
    expect(splitNatsUrl('nats://a:4222')).toEqual({ servers: 'nats://a:4222' });
  });

  it('refuses servers with different credentials', () => {
    expect(() => splitNatsUrl('nats://u:p@a:4222,nats://v:q@b:4222')).toThrow(/NATS_URL: the servers carry different credentials/);
  });
});

describe('natsTargetFromEnv', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-nats-env-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives a user its own inbox prefix, unless NATS_INBOX_PREFIX says otherwise', () => {
    expect(natsTargetFromEnv('nats://qa:pw@h:4222', {})).toEqual({
      servers: 'nats://h:4222',
      auth: { user: 'qa', pass: 'pw', inboxPrefix: '_INBOX_qa' },
    });
    expect(natsTargetFromEnv('nats://h:4222', { NATS_USER: 'qa', NATS_PASSWORD: 'pw', NATS_INBOX_PREFIX: '_INBOX_other' }).auth).toEqual({
      user: 'qa',
      pass: 'pw',
      inboxPrefix: '_INBOX_other',
    });
  });

  it.each([
    [{ NATS_CREDS: '/nonexistent/user.creds' }, /invalid configuration: NATS_CREDS: cannot read \/nonexistent\/user.creds: ENOENT/],
    [{ NATS_TLS_CA: '/nonexistent/ca.pem' }, /invalid configuration: NATS_TLS_CA: cannot read/],
    [{ NATS_NKEY_SEED: '/nonexistent/seed' }, /invalid configuration: NATS_NKEY_SEED: cannot read/],
    [{ NATS_NKEY_SEED: 'SUNOTASEED' }, /invalid configuration: NATS_NKEY_SEED: not an nkey user seed/],
    [{ NATS_USER: 'qa' }, /invalid configuration: NATS_PASSWORD: a user needs a password/],
    [
      { NATS_TOKEN: 't', NATS_USER: 'qa', NATS_PASSWORD: 'pw' },
      /invalid configuration: NATS_USER: one way of signing in, not NATS_USER and NATS_TOKEN/,
    ],
    [{ NATS_INBOX_PREFIX: 'has space' }, /invalid configuration: NATS_INBOX_PREFIX/],
  ])('names the variable of a bad setting: %j', (env, message) => {
    expect(() => natsTargetFromEnv('nats://h:4222', env)).toThrow(message);
  });

  it('refuses a file that is not a creds file, and a certificate without its key', () => {
    const file = join(dir, 'not.creds');
    writeFileSync(file, 'hello');
    expect(() => natsTargetFromEnv('nats://h:4222', { NATS_CREDS: file })).toThrow(/NATS_CREDS: .* is not a NATS creds file/);
    expect(() => natsTargetFromEnv('nats://h:4222', { NATS_TLS_CERT: file })).toThrow(/NATS_TLS_KEY: a client certificate needs its key/);
  });

  it('never puts a secret into an error message', () => {
    let message = '';
    try {
      natsTargetFromEnv('nats://u:hunter2@h:4222', { NATS_TOKEN: 'sesame' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/one way of signing in/);
    expect(message).not.toMatch(/hunter2|sesame/);
  });
});

describe('natsConnectOptions', () => {
  it('asks for TLS on a tls:// address, and not otherwise', () => {
    expect(natsConnectOptions({ servers: 'tls://a:4222' }).tls).toEqual({});
    expect(natsConnectOptions({ servers: 'nats://a:4222' }).tls).toBeUndefined();
    expect(natsConnectOptions({ servers: 'nats://a:4222', auth: { tls: { ca: 'PEM' } } }).tls).toEqual({ ca: 'PEM' });
  });
});
