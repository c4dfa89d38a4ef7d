import { readFileSync } from 'node:fs';
import { Authenticator, NodeConnectionOptions, credsAuthenticator, nkeyAuthenticator, nkeys } from '@nats-io/transport-node';
import { StagecraftError } from '@stagecraft/contracts';

/**
 * Who a process is on NATS, and how it checks the server: what `connectNatsBus` adds to the addresses.
 * Secrets are held as read at start-up (a file that cannot be read stops the process there, not at
 * the first reconnect), and never printed: the addresses a process logs carry none of them.
 */
export interface NatsAuth {
  user?: string;
  pass?: string;
  token?: string;
  /** The contents of a `.creds` file: a user JWT and its nkey seed. */
  creds?: Uint8Array;
  /** An nkey user seed (`SU…`). */
  nkeySeed?: Uint8Array;
  /** PEM: the CA that signed the server's certificate; a client certificate and its key (mutual TLS). */
  tls?: { ca?: string; cert?: string; key?: string };
  /** Replies to this process's requests arrive under it; each role's permissions allow only its own. */
  inboxPrefix?: string;
}

/** Where NATS is (no credentials in it: safe to print) and who this process is there. */
export interface NatsTarget {
  servers: string;
  auth?: NatsAuth;
}

const invalid = (variable: string, message: string, cause?: unknown) =>
  new StagecraftError('VALIDATION', `invalid configuration: ${variable}: ${message}`, [{ path: [variable], message }], { cause });

const SERVER = /^([a-z]+):\/\/(?:([^@/]*)@)?(.+)$/;
const decode = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

/**
 * Splits `nats://user:pass@host` or `nats://token@host` (the client ignores credentials in a URL) into
 * addresses without them and the credentials. Several servers may each repeat the same credentials.
 */
export function splitNatsUrl(url: string): { servers: string; user?: string; pass?: string; token?: string } {
  const found = new Set<string>();
  const servers = url.split(',').map((entry) => {
    const match = SERVER.exec(entry.trim());
    if (!match) return entry.trim();
    if (match[2] !== undefined) found.add(match[2]);
    return `${match[1]}://${match[3]}`;
  });
  if (found.size > 1) throw invalid('NATS_URL', 'the servers carry different credentials');
  const [userinfo] = [...found];
  const out = { servers: servers.join(',') };
  if (!userinfo) return out;
  const colon = userinfo.indexOf(':');
  return colon < 0
    ? { ...out, token: decode(userinfo) }
    : { ...out, user: decode(userinfo.slice(0, colon)), pass: decode(userinfo.slice(colon + 1)) };
}

function readSecretFile(variable: string, path: string, read: (path: string) => Buffer): Buffer {
  try {
    return read(path);
  } catch (error) {
    throw invalid(variable, `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, error);
  }
}

const INBOX = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * The NATS identity of a process from its environment and `NATS_URL`: user and password (in the URL or
 * `NATS_USER`/`NATS_PASSWORD`), a token (in the URL or `NATS_TOKEN`), a creds file (`NATS_CREDS`) or an
 * nkey seed (`NATS_NKEY_SEED`, the seed or a file holding it): one of them. TLS from `NATS_TLS_CA`,
 * `NATS_TLS_CERT`, `NATS_TLS_KEY` (files). A bad value is an error naming its variable.
 */
export function natsTargetFromEnv(
  url: string,
  env: Readonly<Record<string, string | undefined>>,
  read: (path: string) => Buffer = readFileSync,
): NatsTarget {
  const get = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const { servers, ...inUrl } = splitNatsUrl(url);
  const auth: NatsAuth = {};
  const ways: string[] = [];

  const user = get('NATS_USER') ?? inUrl.user;
  const pass = get('NATS_PASSWORD') ?? inUrl.pass;
  if ((user === undefined) !== (pass === undefined))
    throw invalid(user === undefined ? 'NATS_USER' : 'NATS_PASSWORD', 'a user needs a password, and a password a user');
  if (user !== undefined) {
    Object.assign(auth, { user, pass });
    ways.push(get('NATS_USER') ? 'NATS_USER' : 'a user in NATS_URL');
  }
  const token = get('NATS_TOKEN') ?? inUrl.token;
  if (token !== undefined) {
    auth.token = token;
    ways.push(get('NATS_TOKEN') ? 'NATS_TOKEN' : 'a token in NATS_URL');
  }
  const credsPath = get('NATS_CREDS');
  if (credsPath !== undefined) {
    auth.creds = readSecretFile('NATS_CREDS', credsPath, read);
    if (!/-----BEGIN NATS USER JWT-----/.test(Buffer.from(auth.creds).toString('utf8')))
      throw invalid('NATS_CREDS', `${credsPath} is not a NATS creds file (no user JWT in it)`);
    ways.push('NATS_CREDS');
  }
  const seed = get('NATS_NKEY_SEED');
  if (seed !== undefined) {
    // The seed itself (from a Secret) or the path of a file holding it.
    const text = seed.trim().startsWith('SU') ? seed.trim() : readSecretFile('NATS_NKEY_SEED', seed, read).toString('utf8').trim();
    try {
      nkeys.fromSeed(new TextEncoder().encode(text));
    } catch (error) {
      throw invalid('NATS_NKEY_SEED', 'not an nkey user seed (SU…)', error);
    }
    auth.nkeySeed = new TextEncoder().encode(text);
    ways.push('NATS_NKEY_SEED');
  }
  if (ways.length > 1)
    throw invalid(ways.find((w) => w.startsWith('NATS_')) ?? 'NATS_URL', `one way of signing in, not ${ways.join(' and ')}`);

  const pem = (name: string) => {
    const path = get(name);
    return path === undefined ? undefined : readSecretFile(name, path, read).toString('utf8');
  };
  const ca = pem('NATS_TLS_CA');
  const cert = pem('NATS_TLS_CERT');
  const key = pem('NATS_TLS_KEY');
  if ((cert === undefined) !== (key === undefined))
    throw invalid(cert === undefined ? 'NATS_TLS_CERT' : 'NATS_TLS_KEY', 'a client certificate needs its key, and a key its certificate');
  if (ca !== undefined || cert !== undefined) auth.tls = { ca, cert, key };

  // A role's replies come under its own prefix: with one `_INBOX` for all, any member could read them all.
  const inboxPrefix = get('NATS_INBOX_PREFIX') ?? (user !== undefined ? `_INBOX_${user}` : undefined);
  if (inboxPrefix !== undefined) {
    if (!INBOX.test(inboxPrefix))
      throw invalid(
        get('NATS_INBOX_PREFIX') ? 'NATS_INBOX_PREFIX' : 'NATS_USER',
        `"${inboxPrefix}" is not a subject prefix (letters, digits, "_", "-", dots)`,
      );
    auth.inboxPrefix = inboxPrefix;
  }
  return { servers, auth };
}

/** The client's options for `target`: TLS is required when asked for (a `tls://` address or TLS files). */
export function natsConnectOptions(target: NatsTarget): NodeConnectionOptions {
  const auth = target.auth ?? {};
  const authenticators: Authenticator[] = [];
  if (auth.creds) authenticators.push(credsAuthenticator(auth.creds));
  if (auth.nkeySeed) authenticators.push(nkeyAuthenticator(auth.nkeySeed));
  const wantsTls = auth.tls !== undefined || /(^|,)\s*tls:\/\//.test(target.servers);
  return {
    servers: target.servers.split(',').map((s) => s.trim()),
    ...(auth.user !== undefined ? { user: auth.user, pass: auth.pass } : {}),
    ...(auth.token !== undefined ? { token: auth.token } : {}),
    ...(authenticators.length > 0 ? { authenticator: authenticators } : {}),
    ...(wantsTls ? { tls: Object.fromEntries(Object.entries(auth.tls ?? {}).filter(([, v]) => v !== undefined)) } : {}),
    ...(auth.inboxPrefix ? { inboxPrefix: auth.inboxPrefix } : {}),
  };
}
