export const PROMPT_REPOSITORY = Symbol('PROMPT_REPOSITORY');
export const CONTRIBUTORS = Symbol('CONTRIBUTORS');
export const WORKFLOWS = Symbol('WORKFLOWS');
