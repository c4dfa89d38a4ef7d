import { StagecraftError, ToolName } from '@stagecraft/contracts';
import { TOOL_CLASSES, toolClassOf, toolsOfClasses } from './tool-classes';

describe('tool classes', () => {
  it('put every tool in exactly one class', () => {
    const listed = Object.values(TOOL_CLASSES).flat();
    expect([...listed].sort()).toEqual([...ToolName.options].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it.each<[ToolName, string]>([
    ['read_file', 'read_only'],
    ['list_dir', 'read_only'],
    ['search_code', 'read_only'],
    ['find_symbol', 'read_only'],
    ['list_entry_points', 'read_only'],
    ['search_index', 'read_only'],
    ['read_tool_output', 'read_only'],
    ['write_file', 'write'],
    ['apply_patch', 'write'],
    ['run_command', 'execute'],
    ['memory_recall', 'memory'],
    ['memory_retain', 'memory'],
    ['memory_reflect', 'memory'],
  ])('%s is %s', (tool, toolClass) => {
    expect(toolClassOf(tool)).toBe(toolClass);
  });

  it('rejects a tool it does not know with a coded error', () => {
    expect(() => toolClassOf('delete_everything' as ToolName)).toThrow(StagecraftError);
  });

  it('lists tools of the granted classes in the contract order', () => {
    expect(toolsOfClasses(['execute', 'read_only'])).toEqual([
      'read_file',
      'list_dir',
      'search_code',
      'find_symbol',
      'list_entry_points',
      'search_index',
      'read_tool_output',
      'run_command',
    ]);
    expect(toolsOfClasses([])).toEqual([]);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(TOOL_CLASSES)).toBe(true);
    expect(Object.isFrozen(TOOL_CLASSES.read_only)).toBe(true);
  });
});
