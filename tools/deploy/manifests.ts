import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';

export const repoRoot = resolve(__dirname, '../..');

// A manifest is loosely typed on purpose: the tests assert its shape instead of trusting it.
export type Manifest = Record<string, any>;

export function readText(relative: string): string {
  return readFileSync(join(repoRoot, relative), 'utf8');
}

/** Compose files use `<<` merge keys, which YAML 1.2 leaves off unless asked. */
export function readCompose(relative: string): Manifest {
  return parse(readText(relative), { merge: true }) as Manifest;
}

/** Every document of a multi-document file; a syntax error fails loudly instead of dropping a document. */
export function readManifests(file: string): Manifest[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  const list = Array.isArray(docs) ? docs : [];
  for (const doc of list) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
  }
  return list.map((doc) => doc.toJS() as Manifest | null).filter((m): m is Manifest => m !== null);
}

/** Paths a kustomization names (resources, components and patch files), resolved against its folder. */
export function kustomizationRefs(kustomizationFile: string): string[] {
  const k = readManifests(kustomizationFile)[0] ?? {};
  const patches = (k['patches'] ?? []) as Array<{ path?: string }>;
  const refs = [
    ...((k['resources'] ?? []) as string[]),
    ...((k['components'] ?? []) as string[]),
    ...patches.flatMap((p) => (p.path ? [p.path] : [])),
  ];
  return refs.map((ref) => resolve(dirname(kustomizationFile), ref));
}

/**
 * All objects a kustomization renders from files, following folder resources and components into their
 * kustomizations. Patches are not applied: the objects are the ones the base files declare.
 */
export function kustomizationObjects(dir: string): Manifest[] {
  const file = join(dir, 'kustomization.yaml');
  const k = readManifests(file)[0] ?? {};
  const refs = [...((k['resources'] ?? []) as string[]), ...((k['components'] ?? []) as string[])];
  return refs.flatMap((ref) => {
    const target = resolve(dir, ref);
    return statSync(target).isDirectory() ? kustomizationObjects(target) : readManifests(target);
  });
}

export function isKustomizationTarget(path: string): boolean {
  if (!existsSync(path)) return false;
  return statSync(path).isFile() || existsSync(join(path, 'kustomization.yaml'));
}

type ModelClass = new (data: Manifest) => { validate(): void };

/**
 * Checks an object against the Kubernetes OpenAPI schema of its kind with `kubernetes-models` (ESM only, so it
 * is imported on demand). The package's folders are named like API versions (`v1`, `apps/v1`, `policy/v1`).
 * Throws on a schema violation or an unknown kind. The schemas do not forbid unknown fields.
 */
export async function validateKubernetesObject(object: Manifest): Promise<void> {
  const { apiVersion, kind, ...data } = object;
  const group = (await import(`kubernetes-models/${apiVersion}`)) as Record<string, ModelClass | undefined>;
  const Model = group[kind];
  if (Model === undefined) throw new Error(`kubernetes-models has no ${apiVersion} ${kind}`);
  new Model(data).validate();
}

/** Where the processes' configuration is read: every non-test TypeScript source of the libraries and apps. */
const SOURCE_DIRS = ['libs', 'apps'];
const NOT_PROCESS_CODE = /(\.spec\.ts|\.testing\.ts|\.d\.ts)$|\/(dist|node_modules|e2e)\/|^libs\/testing\//;
const VARIABLE_NAME = /^(STAGECRAFT|OPENAI|OTEL|NATS|KURRENTDB)_[A-Z0-9_]*[A-Z0-9]$|^LOG_LEVEL$/;

function sourceFiles(): string[] {
  return SOURCE_DIRS.flatMap((dir) =>
    readdirSync(join(repoRoot, dir), { recursive: true, encoding: 'utf8' })
      .map((f) => `${dir}/${f}`)
      .filter((f) => f.endsWith('.ts') && !NOT_PROCESS_CODE.test(f)),
  );
}

/**
 * Names in a source that read an environment variable: `env.NAME`, `env['NAME']`, a schema key `NAME:`,
 * or a name passed as a string (`choice(env, 'NAME', …)`). Comments, constant declarations
 * (`STAGECRAFT_VERSION`) and names inside longer strings (`STAGECRAFT_NOTES.md`) do not count.
 */
function variablesIn(fileName: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && VARIABLE_NAME.test(node.text)) found.push(node.text);
    if (ts.isPropertyAccessExpression(node) && VARIABLE_NAME.test(node.name.text)) found.push(node.name.text);
    if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && ts.isIdentifier(node.name)) {
      if (VARIABLE_NAME.test(node.name.text)) found.push(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false));
  return found;
}

/** Every environment variable the services and the CLI read, with the first file that reads each. */
export function variablesReadBySource(): Map<string, string> {
  const readers = new Map<string, string>();
  for (const file of sourceFiles()) {
    for (const name of variablesIn(file, readFileSync(join(repoRoot, file), 'utf8'))) {
      if (!readers.has(name)) readers.set(name, relative(repoRoot, join(repoRoot, file)));
    }
  }
  return readers;
}

/**
 * Variables a YAML file documents without setting them: commented-out entries such as
 * `# STAGECRAFT_PRICES: '{…}'`, for settings whose absence is their default.
 */
export function commentedOutKeys(text: string): string[] {
  return [...text.matchAll(/^\s*#\s*([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
}

/** The body of a Markdown section (`## Title`) up to the next heading of the same or a higher level. */
export function markdownSection(text: string, title: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^#{1,2} /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The table rows of a Markdown text (header and separator rows excluded). */
export function tableRows(markdown: string): string[] {
  const rows = markdown.split('\n').filter((l) => /^\s*\|/.test(l));
  return rows.filter((row, i) => !/^\s*\|[\s:|-]+\|\s*$/.test(row) && !/^\s*\|[\s:|-]+\|\s*$/.test(rows[i + 1] ?? ''));
}
