import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { MessageBus } from './bus';
import { NotPermittedError } from './errors';
import { natsTargetFromEnv } from './nats-connect-options';
import { connectNatsBus } from './nats-bus';

/** A server that accepts only the identity in `authorization`, and a round trip through it. */
describe('signing in to a nats-server that wants an identity', () => {
  let dir: string;
  const servers: NatsServerHandle[] = [];
  const buses: MessageBus[] = [];
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-nats-auth-'))));
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  async function serverWith(name: string, conf: string): Promise<NatsServerHandle> {
    const file = join(dir, `${name}.conf`);
    writeFileSync(file, conf);
    const server = await startNatsServer({ config: file });
    servers.push(server);
    return server;
  }

  /** Connects, then proves it: a request answered by a second connection with the same identity. */
  async function roundTrip(target: Parameters<typeof connectNatsBus>[0]): Promise<string> {
    const [a, b] = [await connectNatsBus(target, 'a'), await connectNatsBus(target, 'b')];
    buses.push(a, b);
    b.respond('echo', 'q', async (m) => ({ body: `echo ${m.body}` }));
    await b.flush();
    return (await a.request('echo', 'hi', { timeoutMs: 5000 })).body;
  }

  const refusal = (target: Parameters<typeof connectNatsBus>[0]) =>
    connectNatsBus(target, 'intruder').then(
      (bus) => (buses.push(bus), 'connected'),
      (error: Error) => error.message,
    );

  it('honours a user and password in NATS_URL (percent-encoded) and never repeats them in an error', async () => {
    const server = await serverWith('user', `authorization { user: stage, password: "p@ss:w/rd" }`);
    const url = `nats://stage:p%40ss%3Aw%2Frd@127.0.0.1:${server.port}`;
    expect(await roundTrip(url)).toBe('echo hi');
    expect(await roundTrip(natsTargetFromEnv(url, {}))).toBe('echo hi');
    const wrong = await refusal(`nats://stage:guess@127.0.0.1:${server.port}`);
    expect(wrong).toMatch(/Authorization Violation/i);
    expect(wrong).not.toContain('guess');
    expect(await refusal(`nats://127.0.0.1:${server.port}`)).toMatch(/Authorization Violation/i);
  });

  it('a request the server refuses by permissions fails at once as NotPermittedError, not as a timeout', async () => {
    const server = await serverWith(
      'permissions',
      `authorization { users = [ { user: narrow, password: pw, permissions: { publish: { allow: ["allowed"] }, subscribe: { allow: ["_INBOX_narrow.>"] } } } ] }`,
    );
    const bus = await connectNatsBus(`nats://narrow:pw@127.0.0.1:${server.port}`, 'narrow');
    buses.push(bus);
    const refused = await bus.request('forbidden', '{}', { timeoutMs: 60_000 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(NotPermittedError);
    expect(refused).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('does not permit this client to publish to forbidden'),
    });
    // Its own inbox is the one the role allows: a permitted request with no responder is told so, not refused.
    await expect(bus.request('allowed', '{}', { timeoutMs: 60_000 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      name: 'NoRespondersError',
    });
  });

  it('honours NATS_TOKEN, and a token in NATS_URL', async () => {
    const server = await serverWith('token', `authorization { token: "t0ken-of-trust" }`);
    expect(await roundTrip(natsTargetFromEnv(`nats://127.0.0.1:${server.port}`, { NATS_TOKEN: 't0ken-of-trust' }))).toBe('echo hi');
    expect(await roundTrip(`nats://t0ken-of-trust@127.0.0.1:${server.port}`)).toBe('echo hi');
    expect(await refusal(natsTargetFromEnv(`nats://127.0.0.1:${server.port}`, { NATS_TOKEN: 'other' }))).toMatch(
      /Authorization Violation/i,
    );
  });

  it('honours NATS_NKEY_SEED, as the seed or as a file holding it', async () => {
    const user = nkeys.createUser();
    const seed = new TextDecoder().decode(user.getSeed());
    const server = await serverWith('nkey', `authorization { users = [ { nkey: ${user.getPublicKey()} } ] }`);
    const url = `nats://127.0.0.1:${server.port}`;
    expect(await roundTrip(natsTargetFromEnv(url, { NATS_NKEY_SEED: seed }))).toBe('echo hi');
    const seedFile = join(dir, 'user.nk');
    writeFileSync(seedFile, `${seed}\n`);
    expect(await roundTrip(natsTargetFromEnv(url, { NATS_NKEY_SEED: seedFile }))).toBe('echo hi');
    const stranger = new TextDecoder().decode(nkeys.createUser().getSeed());
    expect(await refusal(natsTargetFromEnv(url, { NATS_NKEY_SEED: stranger }))).toMatch(/Authorization Violation/i);
  });

  it('honours NATS_TLS_CA, NATS_TLS_CERT and NATS_TLS_KEY against a server that verifies client certificates', async () => {
    const pem = (name: string) => join(dir, name);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=test-ca',
      '-keyout',
      pem('ca.key'),
      '-out',
      pem('ca.pem'),
    );
    for (const [name, ext] of [
      ['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      ['client', 'extendedKeyUsage=clientAuth'],
    ]) {
      openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', pem(`${name}.key`), '-out', pem(`${name}.csr`));
      writeFileSync(pem(`${name}.ext`), `${ext}\n`);
      openssl(
        'x509',
        '-req',
        '-in',
        pem(`${name}.csr`),
        '-CA',
        pem('ca.pem'),
        '-CAkey',
        pem('ca.key'),
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        pem(`${name}.ext`),
        '-out',
        pem(`${name}.pem`),
      );
    }
    const server = await serverWith(
      'tls',
      `tls { cert_file: "${pem('server.pem')}", key_file: "${pem('server.key')}", ca_file: "${pem('ca.pem')}", verify: true }`,
    );
    const url = `tls://127.0.0.1:${server.port}`;
    const env = { NATS_TLS_CA: pem('ca.pem'), NATS_TLS_CERT: pem('client.pem'), NATS_TLS_KEY: pem('client.key') };
    expect(await roundTrip(natsTargetFromEnv(url, env))).toBe('echo hi');
    // Without a client certificate the server ends the handshake; without the CA the client refuses the server.
    expect(await refusal(natsTargetFromEnv(url, { NATS_TLS_CA: pem('ca.pem') }))).not.toBe('connected');
    expect(await refusal(natsTargetFromEnv(url, { NATS_TLS_CERT: pem('client.pem'), NATS_TLS_KEY: pem('client.key') }))).not.toBe(
      'connected',
    );
  });
});
