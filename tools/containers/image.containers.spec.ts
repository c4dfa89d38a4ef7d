import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartedTestContainer, Wait, getContainerRuntimeClient } from 'testcontainers';
import { containersImage } from './availability';
import { StagecraftContainer, containerSession } from './session';

/**
 * The one image every Stagecraft process runs: its default command, the user it runs as, a root
 * filesystem it cannot write, and the probes an orchestrator asks.
 */
const found = containersImage('image suite');

(('notRun' in found ? describe.skip : describe) as jest.Describe)('the stagecraft image', () => {
  const { image } = found as { image: string };
  const session = containerSession('image suite');
  let data: string;
  let serve: StartedTestContainer;

  beforeAll(async () => {
    // The event log's directory, mounted as a volume would be; writable by the image's uid 1000.
    data = mkdtempSync(join(tmpdir(), 'stagecraft-image-'));
    chmodSync(data, 0o777);
    // Read-only as compose and Kubernetes run it. Podman reports an image's EXPOSEd ports as
    // bindings and Testcontainers waits for each, so the probe port is published.
    serve = await session.start(
      new StagecraftContainer(image)
        .withReadOnlyRootFilesystem()
        .withTmpFs({ '/tmp': 'rw,mode=1777' })
        .withBindMounts([{ source: data, target: '/data' }])
        .withExposedPorts(8080)
        .withWaitStrategy(Wait.forHttp('/readyz', 8080).forStatusCode(200))
        .withStartupTimeout(60_000),
    );
  }, 120_000);

  afterAll(async () => {
    const { left } = await session.close();
    rmSync(data, { recursive: true, force: true });
    expect(left).toBe(0);
  }, 60_000);

  it('is configured to run as uid 1000, in production mode, with `stagecraft serve` by default', async () => {
    const client = await getContainerRuntimeClient();
    const { Config } = await client.container.dockerode.getImage(image).inspect();
    expect(Config.User).toBe('1000:1000');
    expect(Config.Cmd).toEqual(['node', 'apps/cli/bin/stagecraft.cjs', 'serve']);
    expect(Config.Env).toEqual(
      expect.arrayContaining(['NODE_ENV=production', 'STAGECRAFT_HEALTH_HOST=0.0.0.0', 'STAGECRAFT_HEALTH_PORT=8080']),
    );
  });

  it('runs its default command as a non-root user', async () => {
    expect((await serve.exec(['id', '-u'])).output.trim()).toBe('1000');
    const command = await serve.exec(['sh', '-c', "tr '\\0' ' ' < /proc/1/cmdline"]);
    expect(command.output.trim()).toBe('node apps/cli/bin/stagecraft.cjs serve');
  });

  it('cannot write its own files, not even as root; it writes its log only to the mounted /data', async () => {
    for (const user of ['1000', '0']) {
      const write = await serve.exec(['sh', '-c', 'echo changed > /app/package.json'], { user });
      const outcome = { user, failed: write.exitCode !== 0, readOnly: /Read-only file system/.test(write.output) };
      expect(outcome).toEqual({ user, failed: true, readOnly: true });
    }
    expect((await serve.exec(['ls', '/data'])).output.split('\n')).toContain('events.db');
  });

  it('answers /healthz and /readyz with 200', async () => {
    const base = `http://${serve.getHost()}:${serve.getMappedPort(8080)}`;
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${base}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
  });
});
