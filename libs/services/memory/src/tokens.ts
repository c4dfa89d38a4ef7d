/** The memory service's own providers. */
export const MEMORY_CONFIG = Symbol('MEMORY_CONFIG');
export const MEMORY_VIEWS = Symbol('MEMORY_VIEWS');
export const MEMORY_BOOK = Symbol('MEMORY_BOOK');
