import type { EntryPoint, IndexLanguage, IndexedSymbol, SymbolKind } from '@stagecraft/contracts';
import type { SyntaxNode } from './syntax';

interface Definition {
  kind: SymbolKind;
  name: string;
  /** Set where the definition names its own container (an extension's receiver), not the enclosing scope. */
  container?: string;
}

/** An enclosing definition: methods are functions inside class-like ones. */
interface Scope {
  name: string;
  kind: SymbolKind | 'impl';
}

type Rule = (node: SyntaxNode, scope: Scope | undefined) => Definition | Scope | null;

const CLASS_LIKE: ReadonlySet<string> = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'impl', 'module']);
const nameOf = (node: SyntaxNode, field = 'name') => node.childForFieldName(field)?.text ?? null;
const inClass = (scope: Scope | undefined) => scope !== undefined && CLASS_LIKE.has(scope.kind);
const fn = (node: SyntaxNode, scope: Scope | undefined, field = 'name'): Definition | null => {
  const name = nameOf(node, field);
  return name ? { kind: inClass(scope) ? 'method' : 'function', name } : null;
};
const named =
  (kind: SymbolKind, field = 'name'): Rule =>
  (node) => {
    const name = nameOf(node, field);
    return name ? { kind, name } : null;
  };
const hasKeyword = (node: SyntaxNode, keyword: string) => node.children.some((c) => c !== null && !c.isNamed && c.type === keyword);

/** The types a Kotlin function may be declared on (`fun String?.trim()`): its receiver, before its name. */
const KOTLIN_RECEIVERS: ReadonlySet<string> = new Set([
  'user_type',
  'nullable_type',
  'non_nullable_type',
  'parenthesized_type',
  'function_type',
]);

/**
 * Kotlin functions; a top-level extension function names its receiver type as its container, as Go's
 * methods do, so `fun String.main()` is `String.main`, a method, and not a program's `main`.
 */
function kotlinFunction(node: SyntaxNode, scope: Scope | undefined): Definition | null {
  const definition = fn(node, scope);
  if (!definition || inClass(scope)) return definition;
  let receiver: SyntaxNode | undefined;
  for (const child of node.namedChildren) {
    if (!child || child.type === 'identifier') break; // the name: what follows it is the parameters and the result type
    if (KOTLIN_RECEIVERS.has(child.type)) receiver = child;
  }
  const type = receiver && /[A-Za-z_][A-Za-z0-9_]*/.exec(receiver.text)?.[0];
  return type ? { kind: 'method', name: definition.name, container: type } : definition;
}

const FUNCTION_VALUES: ReadonlySet<string> = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

const SCRIPT: Record<string, Rule> = {
  function_declaration: (n, s) => fn(n, s),
  generator_function_declaration: (n, s) => fn(n, s),
  function_signature: (n, s) => fn(n, s),
  class_declaration: named('class'),
  abstract_class_declaration: named('class'),
  class: named('class'),
  method_definition: (n) => (nameOf(n) ? { kind: 'method', name: nameOf(n)! } : null),
  method_signature: (n) => (nameOf(n) ? { kind: 'method', name: nameOf(n)! } : null),
  abstract_method_signature: (n) => (nameOf(n) ? { kind: 'method', name: nameOf(n)! } : null),
  interface_declaration: named('interface'),
  enum_declaration: named('enum'),
  type_alias_declaration: named('type'),
  internal_module: named('module'),
  variable_declarator: (n, s) => {
    const value = n.childForFieldName('value');
    const name = n.childForFieldName('name');
    if (!value || !name || name.type !== 'identifier' || !FUNCTION_VALUES.has(value.type)) return null;
    return { kind: inClass(s) ? 'method' : 'function', name: name.text };
  },
};

const RULES: Readonly<Partial<Record<IndexLanguage, Record<string, Rule>>>> = {
  typescript: SCRIPT,
  tsx: SCRIPT,
  javascript: SCRIPT,
  python: {
    function_definition: (n, s) => fn(n, s),
    class_definition: named('class'),
  },
  go: {
    function_declaration: (n, s) => fn(n, s),
    method_declaration: named('method'),
    type_spec: (n) => {
      const name = nameOf(n);
      const type = n.childForFieldName('type')?.type;
      if (!name) return null;
      return { kind: type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type', name };
    },
  },
  rust: {
    function_item: (n, s) => fn(n, s),
    function_signature_item: (n, s) => fn(n, s),
    struct_item: named('struct'),
    union_item: named('struct'),
    enum_item: named('enum'),
    trait_item: named('trait'),
    type_item: named('type'),
    mod_item: named('module'),
    impl_item: (n) => {
      const type = n.childForFieldName('type')?.text;
      return type ? { kind: 'impl', name: type } : null;
    },
  },
  java: {
    class_declaration: named('class'),
    record_declaration: named('class'),
    interface_declaration: named('interface'),
    annotation_type_declaration: named('interface'),
    enum_declaration: named('enum'),
    method_declaration: named('method'),
    constructor_declaration: named('method'),
  },
  kotlin: {
    class_declaration: (n) => {
      const name = nameOf(n);
      if (!name) return null;
      const modifiers = n.namedChildren.find((c) => c?.type === 'modifiers')?.text ?? '';
      const kind: SymbolKind = hasKeyword(n, 'interface') ? 'interface' : /\benum\b/.test(modifiers) ? 'enum' : 'class';
      return { kind, name };
    },
    object_declaration: named('class'),
    function_declaration: kotlinFunction,
    type_alias: (n) => {
      const name = n.childForFieldName('type')?.text;
      return name ? { kind: 'type', name } : null;
    },
  },
  swift: {
    class_declaration: (n) => {
      const kind = n.childForFieldName('declaration_kind')?.text;
      const name = nameOf(n);
      if (!name) return null;
      if (kind === 'extension') return { kind: 'impl', name };
      return { kind: kind === 'struct' ? 'struct' : kind === 'enum' ? 'enum' : 'class', name };
    },
    protocol_declaration: named('interface'),
    function_declaration: (n, s) => fn(n, s),
    protocol_function_declaration: named('method'),
    init_declaration: () => ({ kind: 'method', name: 'init' }),
    typealias_declaration: named('type'),
  },
};

const WRAPPERS: ReadonlySet<string> = new Set([
  'export_statement',
  'decorated_definition',
  'lexical_declaration',
  'variable_declaration',
  'type_declaration',
]);

function cleanComment(text: string): string | undefined {
  for (const raw of text.split('\n')) {
    const line = raw
      .replace(/^\s*(\/\*\*?|\*\/|\*|\/\/\/?|#|"""|''')/, '')
      .replace(/(\*\/|"""|''')\s*$/, '')
      .trim();
    if (line.length > 0) return line.slice(0, 160);
  }
  return undefined;
}

/** The first line of the comment right above a definition (or of a Python docstring). */
function docOf(node: SyntaxNode, language: IndexLanguage): string | undefined {
  if (language === 'python') {
    const first = node.childForFieldName('body')?.namedChildren[0];
    const string = first?.type === 'expression_statement' ? first.namedChildren[0] : null;
    if (string?.type === 'string') return cleanComment(string.text);
  }
  let anchor = node;
  while (anchor.parent && WRAPPERS.has(anchor.parent.type)) anchor = anchor.parent;
  const previous = anchor.previousNamedSibling;
  if (!previous || !previous.type.includes('comment')) return undefined;
  if (previous.endPosition.row < anchor.startPosition.row - 1) return undefined;
  return cleanComment(previous.text);
}

/**
 * Expressions, strings and comments hold no definitions the index lists. Java's `new T() { … }`
 * declares an anonymous class: its methods belong to no class the index lists, least of all the enclosing one.
 */
const SKIPPED_SUBTREES: ReadonlySet<string> = new Set([
  'call_expression',
  'object_creation_expression',
  'string',
  'template_string',
  'comment',
  'line_comment',
  'block_comment',
  'import_statement',
  'import_declaration',
  'import_from_statement',
  'use_declaration',
  'array',
  'object',
]);

const isDefinition = (value: Definition | Scope): value is Definition => value.kind !== 'impl';

/** Every definition of the tree, in source order, with 1-based inclusive line ranges. */
export function extractSymbols(root: SyntaxNode, language: IndexLanguage): IndexedSymbol[] {
  const rules = RULES[language];
  if (!rules) return [];
  const symbols: IndexedSymbol[] = [];
  const visit = (node: SyntaxNode, scope: Scope | undefined) => {
    const rule = rules[node.type];
    const found = rule ? rule(node, scope) : null;
    let inner = scope;
    if (found) {
      inner = { name: found.name, kind: found.kind };
      if (isDefinition(found)) {
        const symbol: IndexedSymbol = {
          name: found.name,
          kind: found.kind,
          startLine: node.startPosition.row + 1,
          endLine: node.endPosition.row + 1,
        };
        if (found.container) symbol.container = found.container;
        else if (scope) symbol.container = scope.name;
        const doc = docOf(node, language);
        if (doc) symbol.doc = doc;
        symbols.push(symbol);
      }
    }
    // What a function body defines is local to it: not an entry of the index, and most of the tree.
    if (found && (found.kind === 'function' || found.kind === 'method')) return;
    if (SKIPPED_SUBTREES.has(node.type)) return;
    for (const child of node.namedChildren) if (child) visit(child, inner);
  };
  visit(root, undefined);
  if (language === 'go') return symbols.map((s) => goReceiver(root, s));
  return symbols;
}

/** Go methods name their receiver type as their container. */
function goReceiver(root: SyntaxNode, symbol: IndexedSymbol): IndexedSymbol {
  if (symbol.kind !== 'method') return symbol;
  const node = root.namedChildren.find((c) => c?.type === 'method_declaration' && c.startPosition.row + 1 === symbol.startLine);
  const receiver = node?.childForFieldName('receiver')?.text.match(/\*?\s*([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\s*\)$/)?.[1];
  return receiver ? { ...symbol, container: receiver } : symbol;
}

/**
 * Whether a Swift declaration carries the `@main` attribute itself: an attribute node named `main`, not
 * the text `@main` anywhere in its modifiers (`@available(*, message: "use @main")` is not one).
 */
function swiftMainAttribute(declaration: SyntaxNode): boolean {
  const modifiers = declaration.namedChildren.find((c) => c?.type === 'modifiers');
  return (modifiers?.namedChildren ?? []).some(
    (attribute) => attribute?.type === 'attribute' && attribute.namedChildren.length === 1 && attribute.namedChildren[0]?.text === 'main',
  );
}

const MAIN_NAME = /__name__\s*==\s*["']__main__["']/;

/** `main` functions (top-level, or Java's static ones), Swift's `@main` type, Python's `if __name__ == "__main__"`. */
export function mainEntryPoints(root: SyntaxNode, language: IndexLanguage, symbols: readonly IndexedSymbol[]): EntryPoint[] {
  const found: EntryPoint[] = [];
  if (language === 'python') {
    for (const child of root.namedChildren) {
      if (child?.type === 'if_statement' && MAIN_NAME.test(child.childForFieldName('condition')?.text ?? ''))
        found.push({ kind: 'main_function', name: '__main__', line: child.startPosition.row + 1 });
    }
    return found;
  }
  if (language === 'swift') {
    for (const child of root.namedChildren) {
      const name = child && swiftMainAttribute(child) ? nameOf(child) : null;
      if (child && name) found.push({ kind: 'main_function', name, line: child.startPosition.row + 1 });
    }
  }
  const wantsMain = language === 'go' || language === 'rust' || language === 'kotlin' || language === 'swift';
  for (const symbol of symbols) {
    if (symbol.name !== 'main') continue;
    if (wantsMain && symbol.kind === 'function' && symbol.container === undefined)
      found.push({ kind: 'main_function', name: 'main', line: symbol.startLine });
    if (language === 'java' && symbol.kind === 'method')
      found.push({ kind: 'main_function', name: `${symbol.container ?? ''}.main`.replace(/^\./, ''), line: symbol.startLine });
  }
  return found;
}
