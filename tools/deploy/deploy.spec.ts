import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDocument, isMap, isScalar } from 'yaml';
import { SERVICE_NAMES } from '@stagecraft/contracts';
import { gatewayConfigFromEnv } from '@stagecraft/model-gateway';
import { subjectMatches } from '@stagecraft/messaging';
import { DEFAULT_SANDBOX_OPTIONS, sandboxOptionsFromEnv } from '@stagecraft/sandbox';
import { loadShellConfig } from '@stagecraft/service-shell';
import { memoryConfigFromEnv } from '@stagecraft/memory-service';
import { tracingRequested } from '@stagecraft/telemetry';
import { dockerfileStages, stageUser } from './dockerfile';
import {
  Manifest,
  commentedOutKeys,
  isKustomizationTarget,
  kustomizationObjects,
  kustomizationRefs,
  markdownSection,
  readCompose,
  readManifests,
  readText,
  repoRoot,
  tableRows,
  validateKubernetesObject,
  variablesReadBySource,
} from './manifests';

const APPS = ['conversation', 'policy', 'prompt-assembly', 'tool-execution', 'qa', 'memory'];
/** Apps that ask the model for completions. */
const MODEL_APPS = ['conversation', 'qa'];
/** Apps that may call the model endpoint: completions, or embeddings when STAGECRAFT_EMBEDDING_MODEL is set. */
const ENDPOINT_APPS = [...MODEL_APPS, 'memory', 'tool-execution'];
/** Apps that work on project files: conversation checks roots and copies projects for workflow agents. */
const WORKSPACE_APPS = ['conversation', 'tool-execution', 'qa'];
/** No state of their own: replicas share the subjects through queue groups. */
const STATELESS_APPS = ['policy', 'prompt-assembly', 'tool-execution', 'qa'];
const k8sRoot = join(repoRoot, 'deploy/k8s');
const configFile = join(k8sRoot, 'base/config.yaml');

const entryPoint = (app: string) => `apps/${app}/dist/main.js`;
const sorted = (xs: Iterable<string>) => [...xs].sort();
const labelsOf = (o: Manifest): Record<string, string> => o['metadata']?.['labels'] ?? {};
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** A probe or target port may be a number or the name of a container port; both resolve to a number. */
function containerPort(container: Manifest, port: number | string): number | undefined {
  const ports = (container['ports'] ?? []) as Array<{ name?: string; containerPort: number }>;
  const found = ports.find((p) => (typeof port === 'number' ? p.containerPort === port : p.name === port));
  return found?.containerPort;
}

describe('the deployed apps', () => {
  it('are exactly the services the contracts name, each an app in the workspace', () => {
    expect(sorted(SERVICE_NAMES)).toEqual(sorted(APPS));
    for (const app of APPS) expect(existsSync(join(repoRoot, 'apps', app, 'package.json'))).toBe(true);
  });
});

describe('docker-compose.yml', () => {
  const compose = readCompose('docker-compose.yml');
  const services = compose['services'] as Record<string, Manifest>;

  it('runs the six services next to nats and kurrentdb, and nothing else', () => {
    expect(sorted(Object.keys(services))).toEqual(sorted([...APPS, 'nats', 'kurrentdb']));
  });

  it('pins every image to a version, and builds the services as ${STAGECRAFT_IMAGE:-stagecraft:local}', () => {
    for (const [name, s] of Object.entries(services)) {
      const image = String(s['image']);
      expect([name, image]).toEqual([name, expect.stringMatching(/:[^:/]*\d[^:/]*$|:-stagecraft:local\}$/)]);
      expect([name, image]).not.toEqual([name, expect.stringMatching(/:latest$/)]);
    }
    expect(services['nats']['image']).toMatch(/^nats:2\.10\.\d+-alpine$/);
    expect(services['kurrentdb']['image']).toMatch(/^docker\.kurrent\.io\/kurrent-latest\/kurrentdb:\d+\.\d+\.\d+$/);
    for (const app of APPS) expect(services[app]['image']).toBe('${STAGECRAFT_IMAGE:-stagecraft:local}');
  });

  it.each([...APPS, 'nats', 'kurrentdb'])('%s has cpu and memory limits', (name) => {
    const s = services[name];
    const limits = s['deploy']?.['resources']?.['limits'] ?? { cpus: s['cpus'], memory: s['mem_limit'] };
    expect(limits).toEqual({ cpus: expect.stringMatching(/^\d+(\.\d+)?$/), memory: expect.stringMatching(/^\d+[KMG]$/) });
  });

  it('starts nats with JetStream and a store directory on a volume', () => {
    const nats = services['nats'];
    const args = nats['command'] as string[];
    expect(args).toContain('-js');
    const storeDir = args[args.indexOf('-sd') + 1];
    expect((nats['volumes'] as string[]).some((v) => v.endsWith(`:${storeDir}`))).toBe(true);
    expect(nats['healthcheck']['test']).toEqual(expect.arrayContaining([expect.stringContaining('/healthz?js-enabled-only=true')]));
  });

  it('starts kurrentdb insecure, with a health check', () => {
    const db = services['kurrentdb'];
    expect(db['environment']['KURRENTDB_INSECURE']).toBe('true');
    expect(db['healthcheck']['test']).toEqual(expect.arrayContaining([expect.stringContaining('/health/live')]));
  });

  it.each(APPS)('%s runs its entry point from the one shared image', (app) => {
    const s = services[app];
    expect(s['command']).toEqual(['node', entryPoint(app)]);
    expect(s['image']).toBe(services['policy']['image']);
    expect(s['build']).toBeDefined();
  });

  it.each(APPS)('%s reaches NATS and the store by service name, and waits for both to be healthy', (app) => {
    const env = services[app]['environment'] as Record<string, string | null>;
    const nats = new URL(env['NATS_URL'] ?? '');
    const store = new URL(env['STAGECRAFT_STORE'] ?? '');
    expect(nats.protocol).toBe('nats:');
    expect(store.protocol).toBe('kurrentdb:');
    expect(store.searchParams.get('tls')).toBe('false');
    expect(Object.keys(services)).toEqual(expect.arrayContaining([nats.hostname, store.hostname]));
    const dependsOn = services[app]['depends_on'] as Record<string, { condition: string }>;
    expect(dependsOn[nats.hostname].condition).toBe('service_healthy');
    expect(dependsOn[store.hostname].condition).toBe('service_healthy');
  });

  it.each(APPS)('%s serves health on the port its readiness check calls, with tracing off unless the shell asks', (app) => {
    const s = services[app];
    const port = s['environment']['STAGECRAFT_HEALTH_PORT'];
    expect(s['healthcheck']['test'].join(' ')).toContain(`:${port}/readyz`);
    expect(s['environment']['OTEL_TRACES_EXPORTER']).toBe('${OTEL_TRACES_EXPORTER:-none}');
  });

  it.each(WORKSPACE_APPS)('%s mounts the project directory at /workspace', (app) => {
    const s = services[app];
    expect(s['environment']['STAGECRAFT_PROJECT_ROOTS']).toBe('/workspace');
    expect(s['volumes']).toEqual([expect.stringMatching(/^\$\{STAGECRAFT_PROJECT_DIR[^}]*\}:\/workspace(:ro)?$/)]);
  });

  it('lets qa only read the project', () => {
    expect(services['qa']['volumes'][0]).toMatch(/:ro$/);
  });

  it.each(ENDPOINT_APPS)('%s takes the model settings, and the API key only from the shell', (app) => {
    const env = services[app]['environment'] as Record<string, string | null>;
    expect(env).toHaveProperty('OPENAI_BASE_URL');
    expect(env).toHaveProperty('STAGECRAFT_MODEL');
    expect(env['OPENAI_API_KEY']).toBeNull();
  });

  it('makes conversation wait for every other service', () => {
    const dependsOn = services['conversation']['depends_on'] as Record<string, unknown>;
    expect(Object.keys(dependsOn)).toEqual(expect.arrayContaining(APPS.filter((a) => a !== 'conversation')));
  });
});

describe('kustomizations', () => {
  const files = readdirSync(k8sRoot, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('kustomization.yaml'))
    .map((f) => join(k8sRoot, f));

  it('exist for the base, the infra component and the dev overlay', () => {
    expect(files.map((f) => f.slice(k8sRoot.length + 1)).sort()).toEqual(
      expect.arrayContaining(['base/kustomization.yaml', 'infra/kustomization.yaml', 'overlays/dev/kustomization.yaml']),
    );
  });

  it.each(files.map((f) => [f.slice(k8sRoot.length + 1), f]))('%s names only files that exist', (_, file) => {
    const refs = kustomizationRefs(file);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect([ref, isKustomizationTarget(ref)]).toEqual([ref, true]);
  });
});

/** Every Kubernetes object in the repository: the base, the infra component and the overlays' patches. */
function everyKubernetesObject(): Array<[string, Manifest]> {
  const yamlFiles = readdirSync(k8sRoot, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.yaml') && !f.endsWith('kustomization.yaml'),
  );
  return yamlFiles.flatMap((f) =>
    readManifests(join(k8sRoot, f)).map((o): [string, Manifest] => [`${f}: ${o['kind']} ${o['metadata']?.['name']}`, o]),
  );
}

describe('kubernetes schemas', () => {
  const objects = everyKubernetesObject();

  it('cover at least every object of the base and the infra component', () => {
    expect(objects.length).toBeGreaterThanOrEqual(kustomizationObjects(join(k8sRoot, 'overlays/dev')).length);
  });

  it.each(objects)('%s is valid against the Kubernetes schema of its kind', async (_, object) => {
    await expect(validateKubernetesObject(object)).resolves.toBeUndefined();
  });

  it('rejects an object that breaks its schema, so the checks above can fail', async () => {
    const deployment = objects.find(([, o]) => o['kind'] === 'Deployment')?.[1] as Manifest;
    await expect(validateKubernetesObject({ ...deployment, spec: { ...deployment['spec'], replicas: 'two' } })).rejects.toThrow(/replicas/);
    await expect(validateKubernetesObject({ apiVersion: 'v1', kind: 'NoSuchKind' })).rejects.toThrow(/NoSuchKind/);
  });
});

describe('kubernetes base', () => {
  const objects = kustomizationObjects(join(k8sRoot, 'base'));
  const ofKind = (kind: string) => objects.filter((o) => o['kind'] === kind);
  const forApp = (kind: string, app: string) => ofKind(kind).filter((o) => labelsOf(o)['app.kubernetes.io/name'] === app);
  const config = ofKind('ConfigMap').find((c) => c['metadata']['name'] === 'stagecraft-config');
  const healthPort = Number(config?.['data']['STAGECRAFT_HEALTH_PORT']);

  function deploymentOf(app: string) {
    const deployment = forApp('Deployment', app)[0];
    const container = deployment['spec']['template']['spec']['containers'][0];
    return { deployment, pod: deployment['spec']['template'], container };
  }

  it('holds one Deployment, Service and PodDisruptionBudget per app, and no other', () => {
    const names = (kind: string) => sorted(ofKind(kind).map((o) => labelsOf(o)['app.kubernetes.io/name']));
    expect(names('Deployment')).toEqual(sorted(APPS));
    expect(names('Service')).toEqual(sorted(APPS));
    expect(names('PodDisruptionBudget')).toEqual(sorted(APPS));
  });

  it('configures NATS, the KurrentDB store and the subject prefix in stagecraft-config', () => {
    expect(config).toBeDefined();
    const data = config?.['data'] as Record<string, string>;
    expect(data['NATS_URL']).toMatch(/^nats:\/\/[^/]+:4222$/);
    expect(data['STAGECRAFT_STORE']).toMatch(/^kurrentdb:\/\/[^/]+:2113\?tls=false$/);
    expect(data['STAGECRAFT_SUBJECT_PREFIX']).toBe('stagecraft');
    expect(data['OPENAI_API_KEY']).toBeUndefined();
  });

  it('deploys neither NATS nor KurrentDB (the infra component does)', () => {
    const images = ofKind('Deployment').flatMap((d) => d['spec']['template']['spec']['containers'].map((c: Manifest) => c['image']));
    expect(images.filter((i: string) => /nats|kurrent/.test(i))).toEqual([]);
    expect(ofKind('StatefulSet')).toEqual([]);
  });

  it.each(APPS)('%s: one Deployment and one Service, labelled as part of stagecraft', (app) => {
    expect(forApp('Deployment', app)).toHaveLength(1);
    expect(forApp('Service', app)).toHaveLength(1);
    const { deployment, pod } = deploymentOf(app);
    expect(labelsOf(deployment)['app.kubernetes.io/part-of']).toBe('stagecraft');
    expect(pod['metadata']['labels']).toMatchObject(deployment['spec']['selector']['matchLabels']);
  });

  it.each(APPS)('%s: the container runs the app entry point with the shared config', (app) => {
    const { container } = deploymentOf(app);
    expect([...(container['command'] ?? []), ...(container['args'] ?? [])]).toEqual(['node', entryPoint(app)]);
    expect(container['envFrom']).toContainEqual({ configMapRef: { name: 'stagecraft-config' } });
  });

  it.each(APPS)('%s: startup and liveness on /healthz, readiness on /readyz, all on the health port', (app) => {
    const { container } = deploymentOf(app);
    const probes = {
      startupProbe: '/healthz',
      livenessProbe: '/healthz',
      readinessProbe: '/readyz',
    };
    for (const [probe, path] of Object.entries(probes)) {
      const get = container[probe]?.['httpGet'];
      expect([probe, get?.['path'], containerPort(container, get?.['port'])]).toEqual([probe, path, healthPort]);
    }
  });

  it.each(APPS)('%s: metrics are scraped from /metrics on the health port, which is named http-metrics', (app) => {
    const { pod, container } = deploymentOf(app);
    expect(containerPort(container, 'http-metrics')).toBe(healthPort);
    expect(pod['metadata']['annotations']).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(healthPort),
      'prometheus.io/path': '/metrics',
    });
  });

  it.each(APPS)('%s: requests and limits for cpu and memory', (app) => {
    const { resources } = deploymentOf(app).container;
    for (const bound of ['requests', 'limits']) {
      expect(resources[bound]).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
    }
  });

  it.each(APPS)('%s: runs as uid 1000 on a read-only root filesystem, without capabilities, under RuntimeDefault seccomp', (app) => {
    const { pod, container } = deploymentOf(app);
    expect(pod['spec']['securityContext']).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container['securityContext']).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container['volumeMounts']).toContainEqual(expect.objectContaining({ mountPath: '/tmp' }));
  });

  it.each(APPS)('%s: a PodDisruptionBudget covers its pods and still lets a node drain', (app) => {
    const { deployment, pod } = deploymentOf(app);
    const budgets = ofKind('PodDisruptionBudget').filter((b) => matches(b['spec']['selector']['matchLabels'], pod['metadata']['labels']));
    expect(budgets).toHaveLength(1);
    const { minAvailable, maxUnavailable } = budgets[0]['spec'];
    const replicas = deployment['spec']['replicas'] as number;
    expect(maxUnavailable !== undefined ? maxUnavailable >= 1 : minAvailable < replicas).toBe(true);
  });

  it('memory, the single writer of its views, runs one replica and is replaced with Recreate', () => {
    const { deployment } = deploymentOf('memory');
    expect(deployment['spec']['replicas']).toBe(1);
    expect(deployment['spec']['strategy']).toEqual({ type: 'Recreate' });
  });

  it('conversation runs several replicas with a rolling update that never lowers the ready count', () => {
    const { deployment } = deploymentOf('conversation');
    expect(deployment['spec']['replicas']).toBeGreaterThanOrEqual(2);
    expect(deployment['spec']['strategy']).toMatchObject({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } });
  });

  it.each(STATELESS_APPS)('%s: stateless, two replicas by default', (app) => {
    expect(deploymentOf(app).deployment['spec']['replicas']).toBe(2);
  });

  it.each(APPS)('%s: the Service selects the pods and targets the probe port', (app) => {
    const { pod, container } = deploymentOf(app);
    const service = forApp('Service', app)[0];
    const selector = service['spec']['selector'] as Record<string, string>;
    expect(Object.keys(selector).length).toBeGreaterThan(0);
    expect(pod['metadata']['labels']).toMatchObject(selector);
    const probePort = containerPort(container, container['readinessProbe']['httpGet']['port']);
    const targets = service['spec']['ports'].map((p: Manifest) => containerPort(container, p['targetPort'] ?? p['port']));
    expect(targets).toContain(probePort);
  });

  it.each(ENDPOINT_APPS)('%s: the API key comes from an optional Secret', (app) => {
    const env = (deploymentOf(app).container['env'] ?? []) as Manifest[];
    const key = env.find((e) => e['name'] === 'OPENAI_API_KEY');
    expect(key?.['valueFrom']['secretKeyRef']).toMatchObject({ name: expect.any(String), key: expect.any(String), optional: true });
  });

  it.each(APPS.filter((a) => !ENDPOINT_APPS.includes(a)))('%s: gets no API key', (app) => {
    const env = (deploymentOf(app).container['env'] ?? []) as Manifest[];
    expect(env.map((e) => e['name'])).not.toContain('OPENAI_API_KEY');
  });

  it.each(WORKSPACE_APPS)('%s: the project is mounted at STAGECRAFT_PROJECT_ROOTS', (app) => {
    const { pod, container } = deploymentOf(app);
    const env = (container['env'] ?? []) as Manifest[];
    expect(env).toContainEqual({ name: 'STAGECRAFT_PROJECT_ROOTS', value: '/workspace' });
    const mount = container['volumeMounts'].find((m: Manifest) => m['mountPath'] === '/workspace');
    const volume = pod['spec']['volumes'].find((v: Manifest) => v['name'] === mount?.['name']);
    const claim = volume?.['persistentVolumeClaim']?.['claimName'];
    expect(ofKind('PersistentVolumeClaim').map((c) => c['metadata']['name'])).toContain(claim);
  });

  it('tool-execution says how to give bubblewrap a user namespace (hostUsers: false), as the docs do', () => {
    expect(readText('deploy/k8s/base/tool-execution.yaml')).toMatch(/^#.*hostUsers: false/m);
    expect(readText('docs/deploy.md')).toMatch(/hostUsers: false/);
  });
});

describe('stagecraft-config', () => {
  const text = readFileSync(configFile, 'utf8');
  const data = readManifests(configFile)[0]['data'] as Record<string, string>;
  const documented = new Set([...Object.keys(data), ...commentedOutKeys(text)]);
  const read = variablesReadBySource();

  it('the source scan finds the variables every process reads', () => {
    expect([...read.keys()]).toEqual(
      expect.arrayContaining(['NATS_URL', 'STAGECRAFT_STORE', 'LOG_LEVEL', 'OPENAI_API_KEY', 'STAGECRAFT_MODEL']),
    );
  });

  it('documents every variable the code reads, set or commented out', () => {
    const missing = [...read].filter(([name]) => !documented.has(name)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
  });

  it('holds no secret: the API key is only named in a comment', () => {
    expect(Object.keys(data).filter((k) => /_(KEY|TOKEN|SECRET|PASSWORD)$/.test(k))).toEqual([]);
    expect(commentedOutKeys(text)).toContain('OPENAI_API_KEY');
  });

  it('has a comment before every key', () => {
    const doc = parseDocument(text);
    const map = doc.get('data', true);
    if (!isMap(map)) throw new Error('stagecraft-config has no data map');
    const uncommented = map.items.flatMap((pair, i) => {
      const key = pair.key;
      const comment = isScalar(key) ? key.commentBefore : undefined;
      // The first key's comment belongs to the map itself.
      return comment || (i === 0 && map.commentBefore) ? [] : [String(isScalar(key) ? key.value : key)];
    });
    expect(uncommented).toEqual([]);
  });

  it('holds only values the services accept', () => {
    expect(() => loadShellConfig(data)).not.toThrow();
    expect(() => gatewayConfigFromEnv(data)).not.toThrow();
    expect(() => sandboxOptionsFromEnv(data)).not.toThrow();
    expect(() => memoryConfigFromEnv(data)).not.toThrow();
  });

  it('spells out the built-in defaults it repeats', () => {
    expect(sandboxOptionsFromEnv(data)).toEqual(DEFAULT_SANDBOX_OPTIONS);
    expect(memoryConfigFromEnv(data)).toEqual(memoryConfigFromEnv({}));
    const deployment = {
      natsUrl: 'nats://nats:4222',
      store: 'kurrentdb://kurrentdb:2113?tls=false',
      healthHost: '0.0.0.0',
      projectRoots: ['/workspace'],
    };
    expect(loadShellConfig(data)).toEqual({ ...loadShellConfig({}), ...deployment });
  });

  it('leaves tracing off', () => {
    expect(tracingRequested(data)).toBe(false);
  });

  it('sets the lease TTL the conversation replicas share', () => {
    expect(Number(data['STAGECRAFT_LEASE_TTL_MS'])).toBeGreaterThan(0);
  });

  it('sets only variables the code reads, apart from the per-stage models still being added', () => {
    const perStage = /^STAGECRAFT_MODEL_(WARMUP|ACT|TOOL_FOLLOWUP|DELIVERY_CHECK|QA_REVIEW)$/;
    expect(Object.keys(data).filter((k) => !read.has(k) && !perStage.test(k))).toEqual([]);
  });
});

describe('README "## Configuration"', () => {
  const section = markdownSection(readText('README.md'), 'Configuration');

  it('exists', () => {
    expect(section).toBeDefined();
  });

  it('has a table row for every variable the code reads', () => {
    const rows = tableRows(section ?? '');
    const missing = [...variablesReadBySource().keys()].filter((name) => !rows.some((row) => row.includes(`\`${name}\``)));
    expect(missing).toEqual([]);
  });
});

describe('docs/deploy.md', () => {
  const text = readText('docs/deploy.md');

  it('has a table row for every variable the code reads', () => {
    const rows = tableRows(text);
    const missing = [...variablesReadBySource().keys()].filter((name) => !rows.some((row) => row.includes(`\`${name}\``)));
    expect(missing).toEqual([]);
  });

  it('names every probe path and port', () => {
    for (const s of ['/healthz', '/readyz', '/metrics', '8080', '4222', '8222', '2113', '/health/live', 'js-enabled-only=true']) {
      expect([s, text.includes(s)]).toEqual([s, true]);
    }
  });
});

describe('kubernetes infra component', () => {
  const objects = kustomizationObjects(join(k8sRoot, 'infra'));
  const component = readManifests(join(k8sRoot, 'infra/kustomization.yaml'))[0];
  const config = readManifests(configFile)[0]['data'] as Record<string, string>;
  const statefulSet = (name: string) => objects.find((o) => o['kind'] === 'StatefulSet' && o['metadata']['name'] === name) as Manifest;
  const container = (name: string) => statefulSet(name)['spec']['template']['spec']['containers'][0] as Manifest;

  it('is a Kustomize component with a StatefulSet, a headless Service and a budget for NATS and KurrentDB', () => {
    expect(component['kind']).toBe('Component');
    for (const name of ['nats', 'kurrentdb']) {
      const set = statefulSet(name);
      const service = objects.find((o) => o['kind'] === 'Service' && o['metadata']['name'] === set['spec']['serviceName']);
      expect(service?.['spec']['clusterIP']).toBe('None');
      expect(set['spec']['template']['metadata']['labels']).toMatchObject(service?.['spec']['selector']);
      const budget = objects.find((o) => o['kind'] === 'PodDisruptionBudget' && o['metadata']['name'] === name);
      expect(set['spec']['template']['metadata']['labels']).toMatchObject(budget?.['spec']['selector']['matchLabels']);
      expect(set['spec']['volumeClaimTemplates']).toHaveLength(1);
    }
  });

  it('runs a pinned NATS 2.10 with JetStream storing on its claim, probed on /healthz?js-enabled-only=true', () => {
    const nats = container('nats');
    expect(nats['image']).toMatch(/^nats:2\.10\.\d+-alpine$/);
    const args = [...(nats['command'] ?? []), ...(nats['args'] ?? [])] as string[];
    expect(args).toContain('-js');
    const storeDir = args[args.indexOf('-sd') + 1];
    expect(storeDir).toBe('/data');
    const claim = statefulSet('nats')['spec']['volumeClaimTemplates'][0]['metadata']['name'];
    expect(nats['volumeMounts']).toContainEqual({ name: claim, mountPath: storeDir });
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      const get = nats[probe]['httpGet'];
      expect([probe, get['path'], containerPort(nats, get['port'])]).toEqual([probe, '/healthz?js-enabled-only=true', 8222]);
    }
  });

  it('runs a pinned KurrentDB from the repository compose uses, insecure and single-node', () => {
    const db = container('kurrentdb');
    const compose = readCompose('docker-compose.yml')['services'] as Record<string, Manifest>;
    expect(db['image']).toMatch(/^docker\.kurrent\.io\/kurrent-latest\/kurrentdb:\d+\.\d+\.\d+$/);
    expect(db['image']).toBe(compose['kurrentdb']['image']);
    expect(container('nats')['image']).toBe(compose['nats']['image']);
    const env = Object.fromEntries((db['env'] as Manifest[]).map((e) => [e['name'], e['value']]));
    expect(env).toMatchObject({ KURRENTDB_INSECURE: 'true', KURRENTDB_CLUSTER_SIZE: '1' });
    expect(db['livenessProbe']['httpGet']['path']).toBe('/health/live');
    expect(readText('deploy/k8s/infra/kurrentdb.yaml')).toMatch(/^#.*secure/m);
  });

  it.each(['nats', 'kurrentdb'])('%s runs as uid 1000 on a read-only root filesystem, with limits', (name) => {
    const pod = statefulSet(name)['spec']['template']['spec'];
    expect(pod['securityContext']).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container(name)['securityContext']).toMatchObject({ readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(container(name)['resources']['limits']).toEqual({ cpu: expect.anything(), memory: expect.anything() });
  });

  it('serves NATS and KurrentDB at the addresses stagecraft-config names', () => {
    const nats = new URL(config['NATS_URL']);
    const store = new URL(config['STAGECRAFT_STORE']);
    const servicePorts = (name: string) =>
      objects.find((o) => o['kind'] === 'Service' && o['metadata']['name'] === name)?.['spec']['ports'].map((p: Manifest) => p['port']);
    expect(servicePorts(nats.hostname)).toContain(Number(nats.port));
    expect(servicePorts(store.hostname)).toContain(Number(store.port));
  });
});

describe('kubernetes dev overlay', () => {
  const overlay = kustomizationObjects(join(k8sRoot, 'overlays/dev'));
  const kustomization = readManifests(join(k8sRoot, 'overlays/dev/kustomization.yaml'))[0];
  const deployments = overlay.filter((o) => o['kind'] === 'Deployment').map((d) => d['metadata']['name'] as string);

  it('builds on the base, adds the infra component and renders all six Deployments and both StatefulSets', () => {
    expect(kustomization['resources']).toContain('../../base');
    expect(kustomization['components']).toContain('../../infra');
    expect(deployments).toHaveLength(APPS.length);
    expect(sorted(overlay.filter((o) => o['kind'] === 'StatefulSet').map((o) => o['metadata']['name']))).toEqual(['kurrentdb', 'nats']);
  });

  it('sets replicas and an image tag only for names the base defines', () => {
    const images = overlay.flatMap((o) => (o['kind'] === 'Deployment' ? o['spec']['template']['spec']['containers'] : []));
    const imageNames = new Set(images.map((c: Manifest) => String(c['image']).split(':')[0]));
    for (const r of kustomization['replicas'] as Array<{ name: string }>) expect(deployments).toContain(r.name);
    for (const i of kustomization['images'] as Array<{ name: string; newTag?: string }>) {
      expect(imageNames.has(i.name)).toBe(true);
      expect(i.newTag).toBeTruthy();
    }
  });

  it('patches only objects the base or the component defines', () => {
    const defined = new Set(overlay.map((o) => `${o['kind']}/${o['metadata']['name']}`));
    for (const { path } of kustomization['patches'] as Array<{ path: string }>) {
      for (const patch of readManifests(join(k8sRoot, 'overlays/dev', path))) {
        expect(defined).toContain(`${patch['kind']}/${patch['metadata']['name']}`);
      }
    }
  });
});

describe('Dockerfile', () => {
  const stages = dockerfileStages(readText('Dockerfile'));
  const final = stages[stages.length - 1];

  it('has separate stages and builds on Node 24', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(final.from).toMatch(/^node:24-bookworm-slim$/);
  });

  it('runs the final stage as a non-root user in production mode', () => {
    expect(['root', '0', '']).not.toContain(stageUser(final));
    const env = final.instructions
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/NODE_ENV=production/);
  });

  it('installs and compiles in an earlier stage, not in the runtime image', () => {
    const runs = (stage: (typeof stages)[number]) =>
      stage.instructions
        .filter((i) => i.keyword === 'RUN')
        .map((i) => i.args)
        .join('\n');
    const earlier = stages.slice(0, -1).map(runs).join('\n');
    expect(earlier).toMatch(/npm install/);
    expect(earlier).toMatch(/npm run build|tsc -b/);
    expect(earlier).toMatch(/npm prune --omit=dev/);
    expect(runs(final)).not.toMatch(/npm (install|ci|run)/);
  });

  it('takes the pruned build into the runtime image', () => {
    const build = stages.find((s) => s.instructions.some((i) => i.keyword === 'RUN' && /npm prune/.test(i.args)));
    const copies = final.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(build?.name).toBeDefined();
    expect(copies).toContainEqual(expect.stringMatching(new RegExp(`^--from=${build?.name} /app \\S+$`)));
  });

  it('lets into the build context the sources and prompts, but no host builds or dependencies', () => {
    const ignore = readText('.dockerignore').split('\n');
    expect(ignore).toEqual(expect.arrayContaining(['!apps/', '!libs/', '!prompts/', '**/node_modules', '**/dist']));
    expect(ignore.indexOf('**/node_modules')).toBeGreaterThan(ignore.indexOf('!apps/'));
  });
});

describe('the NATS server configuration (deploy/k8s/infra/nats.conf)', () => {
  const confPath = 'deploy/k8s/infra/nats.conf';
  const conf = readText(confPath);
  const code = conf.replace(/#.*$/gm, '');
  const users = [...code.matchAll(/\{\s*user:\s*([\w-]+),\s*password:\s*\$(\w+),\s*permissions:\s*\$(\w+)\s*\}/g)].map((m) => ({
    user: m[1],
    variable: m[2],
    role: m[3],
  }));
  /** The text of a role's block `NAME = { … }`, up to its closing brace at the start of a line. */
  const roleBlock = (role: string) => new RegExp(`^${role} = \\{([\\s\\S]*?)^\\}`, 'm').exec(code)?.[1] ?? '';
  const passwordVariables = users.map((u) => u.variable);
  /** The subjects of a role's `publish` or `subscribe` `allow` or `deny` list. */
  const listOf = (role: string, direction: 'publish' | 'subscribe', kind: 'allow' | 'deny'): string[] => {
    // A section on one line first: a lazy multi-line match would run on into the next section's list.
    const section = new RegExp(`${direction}:\\s*\\{([^\\n]*)\\}|${direction}:\\s*\\{([\\s\\S]*?)\\n\\s*\\}`).exec(roleBlock(role));
    const body = section?.[1] ?? section?.[2] ?? '';
    const list = new RegExp(`${kind}:\\s*(\\[[^\\]]*\\]|"[^"]*")`).exec(body)?.[1] ?? '';
    return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  };

  it('has one user per service, one for the single-process host and one for clients, each with a password from the environment and its own permissions', () => {
    expect(sorted(users.map((u) => u.user))).toEqual(sorted([...APPS, 'stagecraft-host', 'clients']));
    for (const { user, variable, role } of users) {
      expect([user, variable]).toEqual([user, `NATS_${user.toUpperCase().replace(/-/g, '_')}_PASSWORD`]);
      expect([user, roleBlock(role).length > 0]).toEqual([user, true]);
    }
  });

  it('lets nobody in anonymously, and nobody subscribe to everything', () => {
    expect(code).not.toMatch(/no_auth_user/);
    expect(code).not.toMatch(/password:\s*["']?[^$\s]/);
    for (const { role } of users) {
      // Without a publish section a user may publish anything; without a subscribe allow-list, subscribe to anything.
      expect([role, listOf(role, 'publish', 'allow').length + listOf(role, 'publish', 'deny').length > 0]).toEqual([role, true]);
      const patterns = listOf(role, 'subscribe', 'allow');
      expect([role, patterns.length > 0]).toEqual([role, true]);
      // `>` only under the role's own inbox and the feeds whose ids may hold dots (run.>, and tool.> without
      // tool.execute); nothing starts with a wildcard.
      const denied = listOf(role, 'subscribe', 'deny');
      const wide = patterns.filter(
        (p) =>
          /^[*>]/.test(p) ||
          (p.endsWith('>') &&
            !p.startsWith('_INBOX_') &&
            p !== 'stagecraft.run.>' &&
            !(p === 'stagecraft.tool.>' && denied.includes('stagecraft.tool.execute'))),
      );
      expect([role, wide]).toEqual([role, []]);
    }
    // Each role reads only its own inbox: with one shared `_INBOX` any member could read every reply.
    for (const { user, role } of users) expect(roleBlock(role)).toContain(`"_INBOX_${user}.>"`);
  });

  it('gives the single-process host (`serve --transport nats`) exactly what the six services may, with its own inbox', () => {
    const roleOf = (user: string) => users.find((u) => u.user === user)?.role ?? '';
    const host = roleOf('stagecraft-host');
    const services = APPS.map(roleOf);
    // A role that may publish nothing (`deny: ">"`) adds nothing; a subject one service is denied, another may publish.
    const publish = new Set(services.flatMap((role) => listOf(role, 'publish', 'allow')));
    for (const role of services)
      for (const denied of listOf(role, 'publish', 'deny').filter((d) => d !== '>'))
        expect([role, denied, publish.has(denied)]).toEqual([role, denied, true]);
    expect(sorted(new Set(listOf(host, 'publish', 'allow')))).toEqual(sorted(publish));
    expect(listOf(host, 'publish', 'deny')).toEqual([]);
    const ownInbox = (role: string) => `_INBOX_${users.find((u) => u.role === role)?.user}.>`;
    const subscribe = new Set(services.flatMap((role) => listOf(role, 'subscribe', 'allow').filter((p) => p !== ownInbox(role))));
    expect(sorted(new Set(listOf(host, 'subscribe', 'allow')))).toEqual(sorted([...subscribe, '_INBOX_stagecraft-host.>']));
    expect(listOf(host, 'subscribe', 'deny')).toEqual([]);
    expect(roleBlock(host)).toMatch(/^\s*allow_responses: true$/m);
  });

  it('keeps the services\u2019 internal subjects from clients', () => {
    const clients = listOf('CLIENTS', 'publish', 'allow');
    for (const subject of ['tool.execute', 'memory.recall', 'memory.retain', 'memory.history.get', 'prompt.assemble', 'policy.decide'])
      expect([subject, clients.filter((p) => subjectMatches(p, `stagecraft.${subject}`))]).toEqual([subject, []]);
    for (const subject of ['conversation.send', 'approval.answer', 'runs.list', 'workflow.start', 'workflow.get', 'memory.health'])
      expect([subject, clients.some((p) => subjectMatches(p, `stagecraft.${subject}`))]).toEqual([subject, true]);
    expect(listOf('CLIENTS', 'subscribe', 'deny')).toContain('stagecraft.tool.execute');
  });

  it('is accepted by nats-server with every password set, and refused without them', () => {
    const test = (env: Record<string, string>) =>
      spawnSync('nats-server', ['-c', join(repoRoot, confPath), '-t'], {
        env: { PATH: process.env['PATH'] ?? '', ...env },
        encoding: 'utf8',
      });
    const probe = test({});
    if (probe.error) return; // no nats-server here: the e2e suites, which start it with this file, still check it
    expect(probe.status).not.toBe(0);
    expect(`${probe.stderr}${probe.stdout}`).toMatch(/NATS_\w+_PASSWORD/);
    const all = test(Object.fromEntries(passwordVariables.map((v) => [v, `p${v.length}secret`])));
    expect([all.status, all.stderr]).toEqual([0, expect.any(String)]);
  });

  it('is the file docker-compose.yml mounts, with every password from the environment', () => {
    const services = readCompose('docker-compose.yml')['services'] as Record<string, Manifest>;
    const nats = services['nats'];
    const args = nats['command'] as string[];
    const file = args[args.indexOf('-c') + 1];
    expect(nats['volumes']).toContain(`./${confPath}:${file}:ro`);
    expect(sorted(Object.keys(nats['environment']))).toEqual(sorted(passwordVariables));
    for (const v of passwordVariables) expect(nats['environment'][v]).toMatch(new RegExp(`^\\$\\{${v}:\\?`));
    for (const app of APPS) {
      const env = services[app]['environment'] as Record<string, string>;
      const variable = `NATS_${app.toUpperCase().replace(/-/g, '_')}_PASSWORD`;
      expect([app, env['NATS_USER'], env['NATS_PASSWORD']]).toEqual([
        app,
        app,
        expect.stringMatching(new RegExp(`^\\$\\{${variable}:\\?`)),
      ]);
    }
  });

  it('is the file the infra component runs, with every password from the Secret stagecraft-nats', () => {
    const component = readManifests(join(k8sRoot, 'infra/kustomization.yaml'))[0];
    const generated = (component['configMapGenerator'] as Manifest[]).find((g) => g['name'] === 'nats-config');
    expect(generated?.['files']).toEqual(['nats.conf']);
    const set = kustomizationObjects(join(k8sRoot, 'infra')).find(
      (o) => o['kind'] === 'StatefulSet' && o['metadata']['name'] === 'nats',
    ) as Manifest;
    const pod = set['spec']['template']['spec'];
    const container = pod['containers'][0];
    const args = container['args'] as string[];
    const file = args[args.indexOf('-c') + 1];
    const volume = (pod['volumes'] as Manifest[]).find((v) => v['configMap']?.['name'] === 'nats-config');
    expect(container['volumeMounts']).toContainEqual({ name: volume?.['name'], mountPath: dirname(file), readOnly: true });
    expect(file.endsWith('/nats.conf')).toBe(true);
    const env = Object.fromEntries((container['env'] as Manifest[]).map((e) => [e['name'], e['valueFrom']?.['secretKeyRef']]));
    for (const { user, variable } of users) expect([variable, env[variable]]).toEqual([variable, { name: 'stagecraft-nats', key: user }]);
  });

  it.each(APPS)('%s signs in as its own user, its password from the Secret stagecraft-nats', (app) => {
    const deployment = kustomizationObjects(join(k8sRoot, 'base')).find(
      (o) => o['kind'] === 'Deployment' && labelsOf(o)['app.kubernetes.io/name'] === app,
    ) as Manifest;
    const env = deployment['spec']['template']['spec']['containers'][0]['env'] as Manifest[];
    expect(env).toContainEqual({ name: 'NATS_USER', value: app });
    expect(env).toContainEqual({ name: 'NATS_PASSWORD', valueFrom: { secretKeyRef: { name: 'stagecraft-nats', key: app } } });
  });
});

describe('the NetworkPolicy of NATS', () => {
  const objects = kustomizationObjects(join(k8sRoot, 'infra'));
  const policies = objects.filter((o) => o['kind'] === 'NetworkPolicy');
  const natsPod = (objects.find((o) => o['kind'] === 'StatefulSet' && o['metadata']['name'] === 'nats') as Manifest)['spec']['template'];

  it('selects the NATS pods and lets in only Stagecraft pods', () => {
    const policy = policies.find((p) => matches(p['spec']['podSelector']['matchLabels'], natsPod['metadata']['labels']));
    expect(policy).toBeDefined();
    expect(policy?.['spec']['policyTypes']).toEqual(['Ingress']);
    const rules = policy?.['spec']['ingress'] as Manifest[];
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(rule['from']).toEqual([{ podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'stagecraft' } } }]);
      expect(rule['ports'].map((p: Manifest) => p['port'])).toContain(4222);
    }
    // Every service pod carries the label the policy admits.
    for (const o of kustomizationObjects(join(k8sRoot, 'base')).filter((d) => d['kind'] === 'Deployment')) {
      expect(o['spec']['template']['metadata']['labels']['app.kubernetes.io/part-of']).toBe('stagecraft');
    }
  });
});

describe('the command sandbox memory limit in the manifests', () => {
  const HEADROOM_MIB = 256;
  const mebibytes = (quantity: string): number => {
    const m = /^(\d+)(Mi|Gi|M|G)$/.exec(quantity);
    if (!m) throw new Error(`unexpected memory quantity ${quantity}`);
    const n = Number(m[1]);
    return m[2].startsWith('G') ? n * 1024 : n;
  };
  const configData = readManifests(configFile)[0]['data'] as Record<string, string>;

  it('is not set in the shared ConfigMap, where it would apply to every pod whatever its limit', () => {
    expect(configData['STAGECRAFT_SANDBOX_MEMORY_MB']).toBeUndefined();
  });

  it.each(APPS)('%s: a sandbox limit it sets is below its container limit by at least 256 MiB; tool-execution sets one', (app) => {
    const deployment = kustomizationObjects(join(k8sRoot, 'base')).find(
      (o) => o['kind'] === 'Deployment' && labelsOf(o)['app.kubernetes.io/name'] === app,
    ) as Manifest;
    const container = deployment['spec']['template']['spec']['containers'][0];
    const set = (container['env'] as Manifest[]).find((e) => e['name'] === 'STAGECRAFT_SANDBOX_MEMORY_MB')?.['value'];
    const compose = readCompose('docker-compose.yml')['services'][app] as Manifest;
    const composeSet = compose['environment']['STAGECRAFT_SANDBOX_MEMORY_MB'];
    if (app === 'tool-execution') expect([set, composeSet]).toEqual([expect.any(String), expect.any(String)]);
    if (set !== undefined) expect(Number(set) + HEADROOM_MIB).toBeLessThanOrEqual(mebibytes(container['resources']['limits']['memory']));
    if (composeSet !== undefined)
      expect(Number(composeSet) + HEADROOM_MIB).toBeLessThanOrEqual(mebibytes(compose['deploy']['resources']['limits']['memory']));
    if (set !== undefined) expect(() => sandboxOptionsFromEnv({ STAGECRAFT_SANDBOX_MEMORY_MB: set })).not.toThrow();
  });
});
