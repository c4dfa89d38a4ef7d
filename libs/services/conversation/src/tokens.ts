export const DRIVER_PORTS = Symbol('DRIVER_PORTS');
export const RUN_REGISTRY = Symbol('RUN_REGISTRY');
export const MODEL_GATEWAY = Symbol('MODEL_GATEWAY');
