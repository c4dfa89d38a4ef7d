import { StagecraftError } from '@stagecraft/contracts';
import { checkAddressing, checkDeclaredSize, checkToken } from './http-guard';
import { McpHttpSettings, isLoopback, mcpHttpSettings } from './http-settings';

const TOKEN = 't'.repeat(40);
const settingsWith = (env: Record<string, string> = {}, bind = '127.0.0.1'): McpHttpSettings =>
  mcpHttpSettings({ STAGECRAFT_MCP_TOKEN: TOKEN, ...env }, bind, () => 'generated');
const refusedWith = (env: Record<string, string | undefined>, bind: string) => {
  try {
    mcpHttpSettings(env, bind, () => 'generated');
    return null;
  } catch (error) {
    return (error as StagecraftError).toReply();
  }
};

describe('the MCP HTTP settings', () => {
  it('generate a token on a loopback bind when none is set, and keep a set one', () => {
    expect(mcpHttpSettings({}, '127.0.0.1', () => 'generated')).toMatchObject({ token: 'generated', generatedToken: true });
    expect(settingsWith()).toMatchObject({ token: TOKEN, generatedToken: false, maxSessions: 64, sessionIdleMs: 600_000 });
  });

  it('refuse a bind beyond the loopback without STAGECRAFT_MCP_TOKEN, naming the fix', () => {
    for (const bind of ['0.0.0.0', '::', '192.168.1.10', 'example.org'])
      expect(refusedWith({}, bind)).toMatchObject({
        code: 'VALIDATION',
        message: expect.stringContaining('set STAGECRAFT_MCP_TOKEN'),
        issues: [{ path: ['STAGECRAFT_MCP_TOKEN'] }],
      });
    expect(refusedWith({ STAGECRAFT_MCP_TOKEN: TOKEN }, '0.0.0.0')).toBeNull();
    for (const bind of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(isLoopback(bind)).toBe(true);
  });

  it('refuse a short token, a bad origin and out-of-range limits, naming the variable', () => {
    expect(refusedWith({ STAGECRAFT_MCP_TOKEN: 'secret' }, '127.0.0.1')).toMatchObject({ issues: [{ path: ['STAGECRAFT_MCP_TOKEN'] }] });
    expect(refusedWith({ STAGECRAFT_MCP_ORIGINS: 'https://ok.example, not an origin' }, '127.0.0.1')).toMatchObject({
      issues: [{ path: ['STAGECRAFT_MCP_ORIGINS', 1] }],
    });
    expect(refusedWith({ STAGECRAFT_MCP_ORIGINS: 'https://ok.example/path' }, '127.0.0.1')).not.toBeNull();
    expect(refusedWith({ STAGECRAFT_MCP_MAX_SESSIONS: '0' }, '127.0.0.1')).toMatchObject({
      issues: [{ path: ['STAGECRAFT_MCP_MAX_SESSIONS'] }],
    });
    expect(refusedWith({ STAGECRAFT_MCP_SESSION_IDLE_MS: 'soon' }, '127.0.0.1')).toMatchObject({
      issues: [{ path: ['STAGECRAFT_MCP_SESSION_IDLE_MS'] }],
    });
  });
});

describe('the MCP HTTP guard', () => {
  const settings = settingsWith({ STAGECRAFT_MCP_ORIGINS: 'https://app.example' });

  it('answers a missing or wrong token with 401, a challenge and the structured error', () => {
    const missing = checkToken({}, settings);
    expect(missing).toMatchObject({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="stagecraft-mcp"' },
      body: { code: 'UNAUTHORIZED', message: expect.any(String), issues: [{ path: ['headers', 'authorization'] }] },
    });
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN, `Basic ${TOKEN}`, 'Bearer ', `Bearer ${TOKEN} x`])
      expect(checkToken({ authorization }, settings)).toMatchObject({
        status: 401,
        headers: { 'www-authenticate': expect.stringContaining('invalid_token') },
        body: { code: 'UNAUTHORIZED' },
      });
    expect(checkToken({ authorization: `Bearer ${TOKEN}` }, settings)).toBeNull();
    expect(checkToken({ authorization: `bearer ${TOKEN}` }, settings)).toBeNull();
  });

  it('on a loopback bind, answers only loopback or listed names, and only loopback, listed or no origins', () => {
    const check = (headers: Record<string, string>) => checkAddressing(headers, settings, '127.0.0.1')?.status ?? 200;
    expect(check({ host: '127.0.0.1:8080' })).toBe(200);
    expect(check({ host: 'localhost:8080', origin: 'http://localhost:3000' })).toBe(200);
    expect(check({ host: '[::1]:8080', origin: 'http://[::1]:3000' })).toBe(200);
    expect(check({ host: '127.0.0.1:8080', origin: 'https://app.example' })).toBe(200);
    expect(check({ host: 'attacker.example:8080' })).toBe(403);
    expect(check({})).toBe(403);
    expect(check({ host: '127.0.0.1:8080', origin: 'https://attacker.example' })).toBe(403);
    expect(check({ host: '127.0.0.1:8080', origin: 'null' })).toBe(403);
    expect(check({ host: '127.0.0.1:8080', origin: 'https://app.example.attacker.example' })).toBe(403);
    expect(checkAddressing({ host: '127.0.0.1', origin: 'https://evil.example' }, settings, '127.0.0.1')).toMatchObject({
      body: { code: 'FORBIDDEN', issues: [{ path: ['headers', 'origin'] }] },
    });
  });

  it('beyond the loopback, answers any name unless names are listed, and only listed origins', () => {
    const open = settingsWith({}, '0.0.0.0');
    expect(checkAddressing({ host: 'mcp.internal:8080' }, open, '0.0.0.0')).toBeNull();
    expect(checkAddressing({ host: 'mcp.internal', origin: 'http://localhost:3000' }, open, '0.0.0.0')?.status).toBe(403);
    const named = settingsWith({ STAGECRAFT_MCP_HOSTS: 'mcp.internal' }, '0.0.0.0');
    expect(checkAddressing({ host: 'mcp.internal:8080' }, named, '0.0.0.0')).toBeNull();
    expect(checkAddressing({ host: 'other.internal:8080' }, named, '0.0.0.0')?.status).toBe(403);
  });

  it('refuses a body declared larger than the bound before reading it', () => {
    expect(checkDeclaredSize({ 'content-length': String(settings.maxBodyBytes + 1) }, settings)).toMatchObject({
      status: 413,
      body: { code: 'LIMIT_EXCEEDED' },
    });
    expect(checkDeclaredSize({ 'content-length': '10' }, settings)).toBeNull();
  });
});
