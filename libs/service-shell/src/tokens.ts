/** Injection tokens for the ports every service shell binds; the values come from the composition root. */
export const EVENT_STORE = Symbol('EVENT_STORE');
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
export const REQUESTER = Symbol('REQUESTER');
export const SHELL_CONFIG = Symbol('SHELL_CONFIG');
export const CLOCK = Symbol('CLOCK');
export const NEW_ID = Symbol('NEW_ID');
export const LOGGER = Symbol('LOGGER');

export type Clock = () => Date;
export type NewId = () => string;
