import { loadShellConfig } from '@stagecraft/service-shell';
import { probePlan, serveTransport } from './serve';

describe('serve settings', () => {
  it('serves on NATS when a URL is given without --transport, and refuses NATS without one', () => {
    expect(serveTransport({}, 'nats://a:4222')).toBe('nats');
    expect(serveTransport({}, undefined)).toBe('inproc');
    expect(serveTransport({ transport: 'inproc' }, 'nats://a:4222')).toBe('inproc');
    expect(() => serveTransport({ transport: 'nats' }, undefined)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: '--transport nats needs --nats-url or NATS_URL' }),
    );
  });

  it('binds the probe port it is told to (0: none), and only tries the default one', () => {
    const plan = (env: Record<string, string>) => probePlan(env, loadShellConfig(env));
    expect(plan({ STAGECRAFT_HEALTH_PORT: '9090' })).toEqual({ port: 9090, fallback: false });
    expect(plan({ STAGECRAFT_HEALTH_PORT: '0' })).toBeNull();
    expect(plan({})).toEqual({ port: 8080, fallback: true });
    expect(plan({ STAGECRAFT_HEALTH_PORT: '' })).toEqual({ port: 8080, fallback: true });
  });
});
