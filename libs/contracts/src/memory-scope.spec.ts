import { Id } from './common';
import { memoryScopeOf } from './memory-scope';

describe('memoryScopeOf', () => {
  it('derives one short id per resolved root', () => {
    const scope = memoryScopeOf('/work/project');
    expect(scope).toMatch(/^p-[0-9a-f]{16}$/);
    expect(Id.safeParse(scope).success).toBe(true);
    expect(memoryScopeOf('/work/project/')).toBe(scope);
    expect(memoryScopeOf('/work/other/../project')).toBe(scope);
    expect(memoryScopeOf('/work/other')).not.toBe(scope);
  });
});
