import { withinProjectRoots } from './project-roots';

describe('withinProjectRoots', () => {
  it('takes any root when the deployment names none', () => {
    expect(withinProjectRoots('/anywhere', undefined)).toBe(true);
  });

  it('takes a root and what lies inside it, by the resolved path', () => {
    const roots = ['/workspace', '/srv/projects/'];
    expect(withinProjectRoots('/workspace', roots)).toBe(true);
    expect(withinProjectRoots('/srv/projects/app/', roots)).toBe(true);
    expect(withinProjectRoots('/srv/projects/a/../b', roots)).toBe(true);
  });

  it('refuses a sibling, a parent, a prefix that is not a directory boundary, and an escape by ..', () => {
    const roots = ['/workspace'];
    expect(withinProjectRoots('/workspace-other', roots)).toBe(false);
    expect(withinProjectRoots('/', roots)).toBe(false);
    expect(withinProjectRoots('/workspace/../etc', roots)).toBe(false);
    expect(withinProjectRoots('/workspace/..', roots)).toBe(false);
    expect(withinProjectRoots('/other', [])).toBe(false);
  });

  it('takes a directory whose name starts with two dots', () => {
    expect(withinProjectRoots('/workspace/..cache', ['/workspace'])).toBe(true);
  });
});
