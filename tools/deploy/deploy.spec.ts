import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@stagecraft/contracts';
import { dockerfileStages, stageUser } from './dockerfile';
import {
  Manifest,
  isKustomizationTarget,
  kustomizationObjects,
  kustomizationRefs,
  readCompose,
  readManifests,
  readText,
  repoRoot,
} from './manifests';

const APPS = ['conversation', 'policy', 'prompt-assembly', 'tool-execution', 'qa', 'memory'];
const MODEL_APPS = ['conversation', 'qa'];
const WORKSPACE_APPS = ['tool-execution', 'qa'];
const k8sRoot = join(repoRoot, 'deploy/k8s');

const entryPoint = (app: string) => `apps/${app}/dist/main.js`;
const sorted = (xs: Iterable<string>) => [...xs].sort();

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

  it('starts nats with JetStream and a store directory on a volume', () => {
    const nats = services['nats'];
    const args = nats['command'] as string[];
    expect(nats['image']).toMatch(/^nats:2\.10/);
    expect(args).toContain('-js');
    const storeDir = args[args.indexOf('-sd') + 1];
    expect((nats['volumes'] as string[]).some((v) => v.endsWith(`:${storeDir}`))).toBe(true);
    expect(nats['healthcheck']['test']).toEqual(expect.arrayContaining([expect.stringContaining('/healthz')]));
  });

  it('starts kurrentdb insecure, with a health check', () => {
    const db = services['kurrentdb'];
    expect(db['image']).toMatch(/kurrentdb/);
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

  it.each(APPS)('%s serves health on the port its readiness check calls', (app) => {
    const s = services[app];
    const port = s['environment']['STAGECRAFT_HEALTH_PORT'];
    expect(s['healthcheck']['test'].join(' ')).toContain(`:${port}/readyz`);
  });

  it.each(WORKSPACE_APPS)('%s mounts the project directory at /workspace', (app) => {
    const s = services[app];
    expect(s['environment']['STAGECRAFT_PROJECT_ROOTS']).toBe('/workspace');
    expect(s['volumes']).toEqual([expect.stringMatching(/^\$\{STAGECRAFT_PROJECT_DIR[^}]*\}:\/workspace(:ro)?$/)]);
  });

  it('lets qa only read the project', () => {
    expect(services['qa']['volumes'][0]).toMatch(/:ro$/);
  });

  it.each(MODEL_APPS)('%s takes the model settings, and the API key only from the shell', (app) => {
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

  it('exist for the base and the dev overlay', () => {
    expect(files.map((f) => f.slice(k8sRoot.length + 1)).sort()).toEqual(
      expect.arrayContaining(['base/kustomization.yaml', 'overlays/dev/kustomization.yaml']),
    );
  });

  it.each(files.map((f) => [f.slice(k8sRoot.length + 1), f]))('%s names only files that exist', (_, file) => {
    const refs = kustomizationRefs(file);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect([ref, isKustomizationTarget(ref)]).toEqual([ref, true]);
  });
});

describe('kubernetes base', () => {
  const objects = kustomizationObjects(join(k8sRoot, 'base'));
  const ofKind = (kind: string) => objects.filter((o) => o['kind'] === kind);
  const forApp = (kind: string, app: string) => ofKind(kind).filter((o) => o['metadata']['labels']?.['app.kubernetes.io/name'] === app);
  const config = ofKind('ConfigMap').find((c) => c['metadata']['name'] === 'stagecraft-config');

  function deploymentOf(app: string) {
    const deployment = forApp('Deployment', app)[0];
    const container = deployment['spec']['template']['spec']['containers'][0];
    return { deployment, pod: deployment['spec']['template'], container };
  }

  /** A probe or target port may be a number or the name of a container port; both resolve to a number. */
  function containerPort(container: Manifest, port: number | string): number | undefined {
    const ports = (container['ports'] ?? []) as Array<{ name?: string; containerPort: number }>;
    const found = ports.find((p) => (typeof port === 'number' ? p.containerPort === port : p.name === port));
    return found?.containerPort;
  }

  it('holds one Deployment and one Service per app, and no other', () => {
    const names = (kind: string) => sorted(ofKind(kind).map((o) => o['metadata']['labels']['app.kubernetes.io/name']));
    expect(names('Deployment')).toEqual(sorted(APPS));
    expect(names('Service')).toEqual(sorted(APPS));
  });

  it('configures NATS, the KurrentDB store and the subject prefix in stagecraft-config', () => {
    expect(config).toBeDefined();
    const data = config?.['data'] as Record<string, string>;
    expect(data['NATS_URL']).toMatch(/^nats:\/\/[^/]+:4222$/);
    expect(data['STAGECRAFT_STORE']).toMatch(/^kurrentdb:\/\/[^/]+:2113\?tls=false$/);
    expect(data['STAGECRAFT_SUBJECT_PREFIX']).toBe('stagecraft');
    expect(data['OPENAI_API_KEY']).toBeUndefined();
  });

  it('deploys neither NATS nor KurrentDB', () => {
    const images = ofKind('Deployment').flatMap((d) => d['spec']['template']['spec']['containers'].map((c: Manifest) => c['image']));
    expect(images.filter((i: string) => /nats|kurrent/.test(i))).toEqual([]);
    expect(ofKind('StatefulSet')).toEqual([]);
  });

  it.each(APPS)('%s: one Deployment and one Service, labelled as part of stagecraft', (app) => {
    expect(forApp('Deployment', app)).toHaveLength(1);
    expect(forApp('Service', app)).toHaveLength(1);
    const { deployment, pod } = deploymentOf(app);
    expect(deployment['metadata']['labels']['app.kubernetes.io/part-of']).toBe('stagecraft');
    expect(pod['metadata']['labels']).toMatchObject(deployment['spec']['selector']['matchLabels']);
  });

  it.each(APPS)('%s: the container runs the app entry point with the shared config', (app) => {
    const { container } = deploymentOf(app);
    expect([...(container['command'] ?? []), ...(container['args'] ?? [])]).toEqual(['node', entryPoint(app)]);
    expect(container['envFrom']).toContainEqual({ configMapRef: { name: 'stagecraft-config' } });
  });

  it.each(APPS)('%s: liveness on /healthz and readiness on /readyz, on the health port', (app) => {
    const { container } = deploymentOf(app);
    const live = container['livenessProbe']['httpGet'];
    const ready = container['readinessProbe']['httpGet'];
    expect(live.path).toBe('/healthz');
    expect(ready.path).toBe('/readyz');
    const port = containerPort(container, ready.port);
    expect(port).toBe(Number(config?.['data']['STAGECRAFT_HEALTH_PORT']));
    expect(containerPort(container, live.port)).toBe(port);
  });

  it.each(APPS)('%s: requests and limits for cpu and memory', (app) => {
    const { resources } = deploymentOf(app).container;
    for (const bound of ['requests', 'limits']) {
      expect(resources[bound]).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
    }
  });

  it.each(APPS)('%s: runs as non-root on a read-only root filesystem', (app) => {
    const { pod, container } = deploymentOf(app);
    expect(pod['spec']['securityContext']['runAsNonRoot']).toBe(true);
    expect(pod['spec']['securityContext']['runAsUser']).toBeGreaterThan(0);
    expect(container['securityContext']).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
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

  it.each(MODEL_APPS)('%s: the API key comes from an optional Secret', (app) => {
    const env = (deploymentOf(app).container['env'] ?? []) as Manifest[];
    const key = env.find((e) => e['name'] === 'OPENAI_API_KEY');
    expect(key?.['valueFrom']['secretKeyRef']).toMatchObject({ name: expect.any(String), key: expect.any(String), optional: true });
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
});

describe('kubernetes dev overlay', () => {
  const overlay = kustomizationObjects(join(k8sRoot, 'overlays/dev'));
  const kustomization = readManifests(join(k8sRoot, 'overlays/dev/kustomization.yaml'))[0];
  const deployments = overlay.filter((o) => o['kind'] === 'Deployment').map((d) => d['metadata']['name'] as string);

  it('builds on the base and renders all six Deployments', () => {
    expect(kustomization['resources']).toContain('../../base');
    expect(deployments).toHaveLength(APPS.length);
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
    expect(earlier).toMatch(/npm run build/);
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
