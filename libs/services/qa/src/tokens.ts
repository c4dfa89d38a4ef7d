/** Injection token for the ModelGateway the reviewer calls. */
export const MODEL_GATEWAY = Symbol('MODEL_GATEWAY');
