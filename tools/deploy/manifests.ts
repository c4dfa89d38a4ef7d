import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

/** Paths a kustomization names (resources and patch files), resolved against its folder. */
export function kustomizationRefs(kustomizationFile: string): string[] {
  const k = readManifests(kustomizationFile)[0] ?? {};
  const patches = (k['patches'] ?? []) as Array<{ path?: string }>;
  const refs = [...((k['resources'] ?? []) as string[]), ...patches.flatMap((p) => (p.path ? [p.path] : []))];
  return refs.map((ref) => resolve(dirname(kustomizationFile), ref));
}

/** All objects a kustomization renders from files, following folder resources into their kustomizations. */
export function kustomizationObjects(dir: string): Manifest[] {
  const file = join(dir, 'kustomization.yaml');
  const k = readManifests(file)[0] ?? {};
  return ((k['resources'] ?? []) as string[]).flatMap((ref) => {
    const target = resolve(dir, ref);
    return statSync(target).isDirectory() ? kustomizationObjects(target) : readManifests(target);
  });
}

export function isKustomizationTarget(path: string): boolean {
  if (!existsSync(path)) return false;
  return statSync(path).isFile() || existsSync(join(path, 'kustomization.yaml'));
}
