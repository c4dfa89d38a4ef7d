/** The injection token under which the generated service modules find the process's ports. */
export const SHELL_CONFIG = Symbol('SHELL_CONFIG');

export type Clock = () => Date;
export type NewId = () => string;
