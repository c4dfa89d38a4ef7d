import { StagecraftError } from '@stagecraft/contracts';
import { apiPlan } from '../commands/serve';
import { checkAddressing, checkToken } from '../mcp/http-guard';
import { apiHttpSettings } from '../mcp/http-settings';

const TOKEN = 'a'.repeat(43);
const refused = (run: () => unknown) => {
  try {
    run();
    return null;
  } catch (error) {
    return (error as StagecraftError).toReply();
  }
};

describe('the console API settings', () => {
  it('read their own variables, never the MCP server’s', () => {
    expect(
      apiHttpSettings({ STAGECRAFT_API_TOKEN: TOKEN, STAGECRAFT_MCP_TOKEN: 'm'.repeat(40) }, '127.0.0.1', () => 'generated'),
    ).toMatchObject({
      token: TOKEN,
      generatedToken: false,
    });
    expect(apiHttpSettings({ STAGECRAFT_MCP_TOKEN: 'm'.repeat(40) }, '127.0.0.1', () => 'generated')).toMatchObject({
      token: 'generated',
      generatedToken: true,
    });
  });

  it('refuse a short token, a bad origin, and a bind beyond the loopback without a token, naming the variable', () => {
    expect(refused(() => apiHttpSettings({ STAGECRAFT_API_TOKEN: 'short' }, '127.0.0.1', () => 'g'))).toMatchObject({
      issues: [{ path: ['STAGECRAFT_API_TOKEN'] }],
    });
    expect(refused(() => apiHttpSettings({ STAGECRAFT_API_ORIGINS: 'nope' }, '127.0.0.1', () => 'g'))).toMatchObject({
      issues: [{ path: ['STAGECRAFT_API_ORIGINS', 0] }],
    });
    expect(refused(() => apiHttpSettings({}, '0.0.0.0', () => 'g'))).toMatchObject({
      code: 'VALIDATION',
      issues: [{ path: ['STAGECRAFT_API_TOKEN'] }],
    });
    expect(refused(() => apiHttpSettings({ STAGECRAFT_API_TOKEN: TOKEN }, '0.0.0.0', () => 'g'))).toBeNull();
  });

  it('name the API’s variables and realm in their refusals', () => {
    const settings = apiHttpSettings({ STAGECRAFT_API_TOKEN: TOKEN }, '127.0.0.1', () => 'g');
    expect(checkToken({}, settings)).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Bearer realm="stagecraft-api"' } });
    expect(checkToken({}, settings)?.body.message).toContain('STAGECRAFT_API_TOKEN');
    expect(checkToken({ authorization: `Bearer ${TOKEN}` }, settings)).toBeNull();
    expect(checkAddressing({ host: 'evil.example' }, settings, '127.0.0.1')?.body.message).toContain('STAGECRAFT_API_HOSTS');
    expect(checkAddressing({ host: '127.0.0.1:80', origin: 'https://evil.example' }, settings, '127.0.0.1')?.body.message).toContain(
      'STAGECRAFT_API_ORIGINS',
    );
  });
});

describe('serve’s API port', () => {
  it('is off unless a flag or STAGECRAFT_API_PORT names a port', () => {
    expect(apiPlan({}, {})).toBeNull();
    expect(apiPlan({}, { STAGECRAFT_API_PORT: '0' })).toBeNull();
    expect(apiPlan({}, { STAGECRAFT_API_PORT: '8081' })).toEqual({ port: 8081, host: '127.0.0.1' });
    expect(apiPlan({ apiPort: 9000, apiHost: '0.0.0.0' }, { STAGECRAFT_API_PORT: '8081', STAGECRAFT_API_HOST: '::1' })).toEqual({
      port: 9000,
      host: '0.0.0.0',
    });
    expect(apiPlan({}, { STAGECRAFT_API_PORT: '8081', STAGECRAFT_API_HOST: '::1' })).toEqual({ port: 8081, host: '::1' });
  });

  it('refuses a value that is not a port', () => {
    for (const value of ['http', '-1', '70000', '80.5'])
      expect(refused(() => apiPlan({}, { STAGECRAFT_API_PORT: value }))).toMatchObject({
        code: 'VALIDATION',
        issues: [{ path: ['STAGECRAFT_API_PORT'] }],
      });
  });
});
