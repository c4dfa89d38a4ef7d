import { PromptAssembleRequest, Stage } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { loadPromptAssembly } from '../dependencies';
import { assemble } from './assemble.handler';

describe('prompt.assemble', () => {
  const deps = loadPromptAssembly({});
  const request = (stage: Stage) =>
    PromptAssembleRequest.parse({
      policy: decideStagePolicy({ userMode: 'agent', reasoningEnabled: true, stage, delegation: { depth: 0, chain: [] } }),
      variables: { project_root: '/work/project', user_input: 'Support YAML configs.' },
    });

  it('renders the stage’s prompt with the request’s variables in it', () => {
    const reply = assemble(request('act'), deps);
    expect(JSON.stringify(reply)).toContain('/work/project');
  });

  it('gives the same reply for the same request (a pure function of its request)', () => {
    expect(assemble(request('warmup'), deps)).toEqual(assemble(request('warmup'), deps));
  });
});
