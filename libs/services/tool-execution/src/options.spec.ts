import { toolExecutionOptionsFromEnv } from './options';

describe('toolExecutionOptionsFromEnv', () => {
  it('leaves roots open when STAGECRAFT_PROJECT_ROOT is unset or blank', () => {
    expect(toolExecutionOptionsFromEnv({})).toEqual({});
    expect(toolExecutionOptionsFromEnv({ STAGECRAFT_PROJECT_ROOT: ' ' })).toEqual({});
  });

  it('reads one or more absolute roots separated like PATH', () => {
    expect(toolExecutionOptionsFromEnv({ STAGECRAFT_PROJECT_ROOT: '/workspace' })).toEqual({ allowedRoots: ['/workspace'] });
    expect(toolExecutionOptionsFromEnv({ STAGECRAFT_PROJECT_ROOT: '/a:/b/c:' })).toEqual({ allowedRoots: ['/a', '/b/c'] });
  });

  it('refuses relative roots, naming the variable', () => {
    expect(() => toolExecutionOptionsFromEnv({ STAGECRAFT_PROJECT_ROOT: '/a:work' })).toThrow("STAGECRAFT_PROJECT_ROOT: entries must be absolute paths, got 'work'");
  });
});
