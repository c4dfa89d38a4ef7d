import { randomUUID } from 'node:crypto';
import { GenericContainer, Network, StartedNetwork, StartedTestContainer, getContainerRuntimeClient } from 'testcontainers';

const LABEL = 'stagecraft.suite';

/** A container of the project's image with the flag Testcontainers has no builder method for. */
export class StagecraftContainer extends GenericContainer {
  /** `--read-only`: the root filesystem cannot be written, as compose and Kubernetes run it. */
  withReadOnlyRootFilesystem(): this {
    this.hostConfig.ReadonlyRootfs = true;
    return this;
  }
}

/**
 * The containers and networks one suite creates. Each container carries the session's label, so
 * `close` removes every one of them (running, stopped, or created by a start that failed) and
 * reports how many it started and how many are left.
 */
export interface ContainerSession {
  start(container: GenericContainer): Promise<StartedTestContainer>;
  network(): Promise<StartedNetwork>;
  close(): Promise<{ started: number; left: number }>;
}

export function containerSession(suite: string): ContainerSession {
  const id = `${suite}-${randomUUID().slice(0, 8)}`;
  const networks: StartedNetwork[] = [];
  let started = 0;

  async function labelled() {
    const client = await getContainerRuntimeClient();
    return client.container.dockerode.listContainers({ all: true, filters: { label: [`${LABEL}=${id}`] } });
  }

  return {
    async start(container) {
      container.withLabels({ [LABEL]: id });
      // The runtime now and then fails a start under load ("write child: broken pipe" from runc, as an
      // HTTP 500): that container stays behind, labelled, for `close`; a fresh one is tried twice more.
      for (let attempt = 1; ; attempt++) {
        started++;
        try {
          return await container.start();
        } catch (error) {
          if (attempt >= 3 || !/HTTP code 5\d\d/.test((error as Error).message)) throw error;
          process.stderr.write(`${suite}: a container start failed (${(error as Error).message}); trying again\n`);
        }
      }
    },
    async network() {
      const network = await new Network().start();
      networks.push(network);
      return network;
    },
    async close() {
      const client = await getContainerRuntimeClient();
      await Promise.all(
        (await labelled()).map((c) =>
          client.container.dockerode
            .getContainer(c.Id)
            .remove({ force: true, v: true })
            .catch(() => undefined),
        ),
      );
      for (const network of networks) await network.stop().catch(() => undefined);
      const left = (await labelled()).length;
      process.stderr.write(`${suite}: started ${started} container(s); ${left === 0 ? 'all removed' : `${left} NOT removed`}\n`);
      return { started, left };
    },
  };
}
