#!/usr/bin/env node
// Prints every import circle between the workspace's TypeScript files and exits 1 when there is one.
// Follows relative imports and `@stagecraft/*` ones (as tsconfig.spec.json and the Jest config map them),
// type-only imports included: a circle of types is still two files that cannot be read apart. A dynamic
// `import()` is a lazy load, not an edge: it runs after both modules are evaluated.
const { existsSync, readFileSync, readdirSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const ts = require('typescript');

// The workspace to read: the first argument, or this repository.
const root = resolve(process.argv[2] ?? join(__dirname, '..', '..'));
const roots = ['libs', 'apps', 'tools'].map((d) => join(root, d));
const skip = new Set(['node_modules', 'dist', 'coverage', '.nx']);

function* tsFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (skip.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* tsFiles(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield path;
  }
}

const asFile = (base) =>
  [`${base}.ts`, join(base, 'index.ts'), base.endsWith('.js') ? `${base.slice(0, -3)}.ts` : undefined].find(
    (p) => p !== undefined && existsSync(p) && statSync(p).isFile(),
  );

/** The file an import names, or undefined for a package outside the workspace. */
function resolveImport(from, spec) {
  if (spec.startsWith('.')) return asFile(resolve(dirname(from), spec));
  const m = /^@stagecraft\/([a-z0-9-]+)(?:\/([a-z0-9/-]+))?$/.exec(spec);
  if (!m) return undefined;
  const [, name, sub] = m;
  const service = /^(.+)-service$/.exec(name);
  const src = service && !sub ? join(root, 'libs', 'services', service[1], 'src') : join(root, 'libs', name, 'src');
  return asFile(join(src, sub ?? 'index'));
}

/** What a file imports or re-exports statically (`import type` and `import('…').T` in types included). */
function specifiers(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found = [];
  const literal = (node) => node && ts.isStringLiteral(node) && found.push(node.text);
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      literal(node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require')
      literal(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = roots.filter(existsSync).flatMap((d) => [...tsFiles(d)]);
const edges = new Map();
for (const file of files) {
  const targets = new Set();
  for (const spec of specifiers(file)) {
    const target = resolveImport(file, spec);
    if (target && target !== file) targets.add(target);
  }
  edges.set(file, [...targets]);
}

// Tarjan's strongly connected components; each component of more than one file holds a circle.
const index = new Map();
const low = new Map();
const onStack = new Set();
const stack = [];
const components = [];
let next = 0;
function connect(v) {
  index.set(v, next);
  low.set(v, next++);
  stack.push(v);
  onStack.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!index.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) === index.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) components.push(component);
  }
}
for (const file of files) if (!index.has(file)) connect(file);

/** The shortest circle through the component's first file (breadth first, inside the component). */
function circle(component) {
  const inside = new Set(component);
  const start = [...component].sort()[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (previous.get(path[0]) !== undefined) path.unshift(previous.get(path[0]));
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}

const rel = (p) => relative(root, p);
for (const component of components) {
  console.error(`import circle (${component.length} files in the knot): ${circle(component).map(rel).join(' -> ')}`);
}
if (components.length > 0) {
  console.error(`${components.length} import circle(s); move the shared declaration to the lower module.`);
  process.exit(1);
}
console.log(`no import circles among ${files.length} files`);
