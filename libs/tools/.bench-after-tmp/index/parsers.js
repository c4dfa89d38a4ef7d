"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.loadParsers = loadParsers;
const node_path_1 = require("node:path");
const web_tree_sitter_1 = require("web-tree-sitter");
/** Where each language's prebuilt grammar lives: npm packages, loaded as WASM (no native build). */
function grammarPath(language) {
    if (language === 'kotlin')
        return (0, node_path_1.join)((0, node_path_1.dirname)(require.resolve('@tree-sitter-grammars/tree-sitter-kotlin/package.json')), 'tree-sitter-kotlin.wasm');
    return (0, node_path_1.join)((0, node_path_1.dirname)(require.resolve('@repomix/tree-sitter-wasms/package.json')), 'out', `tree-sitter-${language}.wasm`);
}
let ready;
const parsers = new Map();
async function parserFor(language) {
    ready ??= web_tree_sitter_1.Parser.init();
    await ready;
    let parser = parsers.get(language);
    if (!parser) {
        parser = web_tree_sitter_1.Language.load(grammarPath(language)).then((grammar) => {
            const p = new web_tree_sitter_1.Parser();
            p.setLanguage(grammar);
            return p;
        });
        parsers.set(language, parser);
    }
    return parser;
}
/** Loads the grammars of the given languages once per process, and returns a synchronous parse over them. */
async function loadParsers(languages) {
    const loaded = new Map();
    for (const language of languages)
        if (language !== 'other')
            loaded.set(language, await parserFor(language));
    return (language, source, use) => {
        const parser = loaded.get(language);
        const tree = parser?.parse(source);
        if (!tree)
            return null;
        try {
            return use(tree.rootNode);
        }
        finally {
            // Trees live in the WASM heap, not the JS one: they are freed by hand.
            tree.delete();
        }
    };
}
//# sourceMappingURL=parsers.js.map