import { StagecraftError } from '@stagecraft/contracts';

const engines = new Set(['kurrentdb', 'kurrent', 'kdb', 'esdb']);

/**
 * Validates a KurrentDB connection string and rewrites the legacy `esdb` scheme, which the client
 * still accepts but warns about on every connect.
 */
export function normalizeKurrentDbConnectionString(url: string): string {
  const match = /^([a-z]+)(\+discover)?:\/\/([^/?#]*)(.*)$/i.exec(url.trim());
  const engine = match?.[1].toLowerCase();
  if (!match || !engine || !engines.has(engine)) {
    throw invalid(url, 'expected kurrentdb://, kurrentdb+discover:// or esdb:// followed by host:port');
  }
  const [, , discover = '', authority, rest] = match;
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  if (hosts.length === 0 || hosts.split(',').some((host) => !/^[^:\s]+(:\d{1,5})?$/.test(host))) {
    throw invalid(url, 'expected one or more host[:port] entries');
  }
  return `${engine === 'esdb' ? 'kurrentdb' : engine}${discover.toLowerCase()}://${authority}${rest}`;
}

/** The hosts a connection string names, for error messages: never its user name or password. */
export function kurrentDbAddress(connectionString: string): string {
  const authority = /^[a-z+]+:\/\/([^/?#]*)/i.exec(connectionString.trim())?.[1] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1);
}

function invalid(url: string, message: string): StagecraftError {
  return new StagecraftError('VALIDATION', `invalid KurrentDB connection string '${url}'`, [{ path: ['connectionString'], message }]);
}
