import { GenericContainer, StartedTestContainer, Wait, getContainerRuntimeClient } from 'testcontainers';
import { containersImage } from './availability';
import { StagecraftContainer, containerSession } from './session';

/**
 * The one image every Stagecraft process runs: its default command, the user it runs as, a root
 * filesystem it cannot write, and the probes an orchestrator asks.
 */
const found = containersImage('image suite');

(('notRun' in found ? describe.skip : describe) as jest.Describe)('the stagecraft image', () => {
  const { image, natsImage } = found as { image: string; natsImage: string };
  const session = containerSession('image suite');
  let serve: StartedTestContainer;
  let service: StartedTestContainer;

  beforeAll(async () => {
    const network = await session.network();
    await session.start(
      new GenericContainer(natsImage).withNetwork(network).withNetworkAliases('nats').withWaitStrategy(Wait.forLogMessage('Server is ready')),
    );
    // Read-only as compose and Kubernetes run it: writable places are mounts, here tmpfs.
    const readOnly = () => new StagecraftContainer(image).withReadOnlyRootFilesystem().withTmpFs({ '/tmp': 'rw,mode=1777', '/data': 'rw,mode=1777' });
    [serve, service] = await Promise.all([
      session.start(readOnly().withWaitStrategy(Wait.forLogMessage(/stagecraft serving/)).withStartupTimeout(60_000)),
      session.start(
        readOnly()
          .withCommand(['node', 'apps/policy/dist/main.js'])
          .withEnvironment({ NATS_URL: 'nats://nats:4222' })
          .withNetwork(network)
          .withExposedPorts(8080)
          .withWaitStrategy(Wait.forHttp('/readyz', 8080).forStatusCode(200))
          .withStartupTimeout(60_000),
      ),
    ]);
  }, 120_000);

  afterAll(async () => {
    const { left } = await session.close();
    expect(left).toBe(0);
  }, 60_000);

  it('is configured to serve as uid 1000, in production mode, with `stagecraft serve` by default', async () => {
    const client = await getContainerRuntimeClient();
    const { Config } = await client.container.dockerode.getImage(image).inspect();
    expect(Config.User).toBe('1000:1000');
    expect(Config.Cmd).toEqual(['node', 'apps/cli/bin/stagecraft.cjs', 'serve']);
    expect(Config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production', 'STAGECRAFT_HEALTH_HOST=0.0.0.0', 'STAGECRAFT_HEALTH_PORT=8080']));
  });

  it('runs its default command as a non-root user', async () => {
    const uid = await serve.exec(['id', '-u']);
    expect(uid.output.trim()).toBe('1000');
    const command = await serve.exec(['sh', '-c', "tr '\\0' ' ' < /proc/1/cmdline"]);
    expect(command.output.trim()).toBe('node apps/cli/bin/stagecraft.cjs serve');
  });

  it('cannot write its own files, not even as root, and writes where a mount is given', async () => {
    for (const user of ['1000', '0']) {
      const write = await serve.exec(['sh', '-c', 'echo changed > /app/package.json'], { user });
      expect({ user, exitCode: write.exitCode, readOnly: /Read-only file system/.test(write.output) }).toEqual({ user, exitCode: 2, readOnly: true });
    }
    expect((await serve.exec(['sh', '-c', 'echo probe > /data/probe && cat /data/probe'])).output.trim()).toBe('probe');
  });

  it('answers /healthz and /readyz with 200 from a service command', async () => {
    const base = `http://${service.getHost()}:${service.getMappedPort(8080)}`;
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${base}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
    expect((await service.exec(['id', '-u'])).output.trim()).toBe('1000');
  });
});
