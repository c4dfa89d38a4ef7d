import { ToolName } from '@stagecraft/contracts';
import { toolSignature, toolSpecs } from './registry';

describe('tool specs', () => {
  it('describe every tool of the contracts with a JSON Schema of its arguments', () => {
    const specs = toolSpecs();
    expect(specs.map((s) => s.name)).toEqual(ToolName.options);
    for (const spec of specs) {
      expect(spec.description.length).toBeGreaterThan(10);
      expect(spec.parameters).toMatchObject({ type: 'object', additionalProperties: false });
    }
    expect(toolSpecs(['write_file'])[0].parameters).toMatchObject({ required: ['path', 'content'] });
  });

  it('summarise the arguments a call should have had', () => {
    expect(toolSignature('run_command')).toBe('run_command {command: string, args?: array, timeoutMs?: integer}');
    expect(toolSignature('list_dir')).toBe('list_dir {path?: string, depth?: integer}');
  });
});
