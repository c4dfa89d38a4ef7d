import { StagecraftError } from '@stagecraft/contracts';
import { DEFAULT_SANDBOX_OPTIONS, sandboxOptionsFromEnv } from './options';

const rejects = (env: Record<string, string>, variable: string) => {
  try {
    sandboxOptionsFromEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(StagecraftError);
    expect((error as StagecraftError).code).toBe('VALIDATION');
    expect((error as StagecraftError).message).toContain(variable);
    return (error as StagecraftError).message;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
};

describe('sandboxOptionsFromEnv', () => {
  it('gives bubblewrap without network, the default limits and no opt-out when nothing is set', () => {
    expect(sandboxOptionsFromEnv({})).toEqual(DEFAULT_SANDBOX_OPTIONS);
  });

  it('reads every setting', () => {
    const env = {
      STAGECRAFT_SANDBOX: '/opt/bin/bwrap',
      STAGECRAFT_SANDBOX_NETWORK: 'on',
      STAGECRAFT_SANDBOX_ENV: 'NPM_CONFIG_REGISTRY, GOPATH UNSET_ONE',
      NPM_CONFIG_REGISTRY: 'https://registry.example',
      GOPATH: '/go',
      STAGECRAFT_SANDBOX_MEMORY_MB: '512',
      STAGECRAFT_SANDBOX_MAX_PROCESSES: '64',
      STAGECRAFT_SANDBOX_MAX_FILE_MB: '10',
      STAGECRAFT_SANDBOX_TMP_MB: '32',
      STAGECRAFT_SANDBOX_CONCURRENCY: '2',
      STAGECRAFT_UNSAFE_RUN_COMMAND_WITHOUT_SANDBOX: '1',
    };
    expect(sandboxOptionsFromEnv(env)).toEqual({
      bwrap: '/opt/bin/bwrap',
      network: true,
      passEnv: { NPM_CONFIG_REGISTRY: 'https://registry.example', GOPATH: '/go' },
      limits: { memoryBytes: 512 * 1024 * 1024, processes: 64, fileSizeBytes: 10 * 1024 * 1024, tmpBytes: 32 * 1024 * 1024 },
      concurrency: 2,
      unsafeWithoutSandbox: true,
    });
  });

  it('refuses a value it does not know, naming the variable', () => {
    expect(rejects({ STAGECRAFT_SANDBOX: 'none' }, 'STAGECRAFT_SANDBOX')).toContain('STAGECRAFT_UNSAFE_RUN_COMMAND_WITHOUT_SANDBOX=1');
    rejects({ STAGECRAFT_SANDBOX_NETWORK: 'yes' }, 'STAGECRAFT_SANDBOX_NETWORK');
    rejects({ STAGECRAFT_UNSAFE_RUN_COMMAND_WITHOUT_SANDBOX: 'true' }, 'STAGECRAFT_UNSAFE_RUN_COMMAND_WITHOUT_SANDBOX');
    rejects({ STAGECRAFT_SANDBOX_MEMORY_MB: '2G' }, 'STAGECRAFT_SANDBOX_MEMORY_MB');
    rejects({ STAGECRAFT_SANDBOX_MAX_PROCESSES: '0' }, 'STAGECRAFT_SANDBOX_MAX_PROCESSES');
    rejects({ STAGECRAFT_SANDBOX_MAX_FILE_MB: '-1' }, 'STAGECRAFT_SANDBOX_MAX_FILE_MB');
    rejects({ STAGECRAFT_SANDBOX_TMP_MB: '0' }, 'STAGECRAFT_SANDBOX_TMP_MB');
    rejects({ STAGECRAFT_SANDBOX_CONCURRENCY: 'many' }, 'STAGECRAFT_SANDBOX_CONCURRENCY');
    rejects({ STAGECRAFT_SANDBOX_ENV: 'OK_NAME, not-a-name' }, 'STAGECRAFT_SANDBOX_ENV');
  });

  it("never lets the service's own credentials and settings in, even when listed", () => {
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'NATS_URL', 'STAGECRAFT_STORE']) {
      expect(rejects({ STAGECRAFT_SANDBOX_ENV: `GOPATH ${name}`, [name]: 'x' }, 'STAGECRAFT_SANDBOX_ENV')).toContain(name);
    }
  });
});
