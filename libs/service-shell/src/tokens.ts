/** Injection tokens for the ports every service shell binds; the values come from the composition root. */

/** The whole store, for services that append. */
export const EVENT_STORE = Symbol('EVENT_STORE');
/** The same store as an `EventReader`, for consumers that only read. */
export const EVENT_READER = Symbol('EVENT_READER');
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
export const REQUESTER = Symbol('REQUESTER');
export const SHELL_CONFIG = Symbol('SHELL_CONFIG');
export const CLOCK = Symbol('CLOCK');
export const NEW_ID = Symbol('NEW_ID');
export const LOGGER = Symbol('LOGGER');

export type Clock = () => Date;
export type NewId = () => string;
