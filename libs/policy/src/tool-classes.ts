import {
  ExecuteToolName,
  MemoryOperation,
  MemoryToolName,
  ReadOnlyToolName,
  StagecraftError,
  ToolClass,
  ToolName,
  WriteToolName,
} from '@stagecraft/contracts';

/** Every tool belongs to exactly one class; stage rules grant classes, not single tools. */
export const TOOL_CLASSES: Readonly<Record<ToolClass, readonly ToolName[]>> = Object.freeze({
  read_only: Object.freeze([...ReadOnlyToolName.options]),
  write: Object.freeze([...WriteToolName.options]),
  execute: Object.freeze([...ExecuteToolName.options]),
  memory: Object.freeze([...MemoryToolName.options]),
});

const classByTool: ReadonlyMap<ToolName, ToolClass> = new Map(
  ToolClass.options.flatMap((toolClass) => TOOL_CLASSES[toolClass].map((tool) => [tool, toolClass] as const)),
);

export function toolClassOf(tool: ToolName): ToolClass {
  const toolClass = classByTool.get(tool);
  if (toolClass === undefined) throw new StagecraftError('VALIDATION', `unknown tool "${String(tool)}"`);
  return toolClass;
}

export function toolsOfClasses(classes: readonly ToolClass[]): ToolName[] {
  return ToolName.options.filter((tool) => classes.includes(toolClassOf(tool)));
}

/** The tool that offers one memory operation: `recall` is `memory_recall`. Granted by `policy.memory`, never by a class. */
export const memoryToolOf = (operation: MemoryOperation): MemoryToolName => `memory_${operation}`;
