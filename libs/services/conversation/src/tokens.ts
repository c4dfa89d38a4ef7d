export const DRIVER_PORTS = Symbol('DRIVER_PORTS');
export const RUN_REGISTRY = Symbol('RUN_REGISTRY');
export const MODEL_GATEWAY = Symbol('MODEL_GATEWAY');
export const LEASE_PORTS = Symbol('LEASE_PORTS');
export const SCALE_SETTINGS = Symbol('SCALE_SETTINGS');
