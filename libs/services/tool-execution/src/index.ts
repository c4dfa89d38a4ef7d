/** The tool service: runs each tool call once in its project's sandbox and records it, as a handler table. */
import { ServiceDefinition, defineService } from '@stagecraft/service-shell';
import { followCancellations } from './cancel/follow-cancellations.processor';
import { ToolExecutionDeps, toolExecutionDeps } from './dependencies';
import { execute } from './execute/execute.handler';
import { indexMap } from './index-map/index-map.handler';
import { ToolExecutionOptions } from './options';
import { recoverInterrupted } from './recover/recover-interrupted.processor';

export { toolExecutionOptionsFromEnv } from './options';
export type { ToolExecutionOptions } from './options';
export { executeToolCall } from './execute/execute-tool-call';
export { recoverInterruptedCalls } from './recover/recover-interrupted.processor';
export type { ToolCallPorts, ToolExecutionDeps } from './dependencies';
export { toolCallDecider } from './tool-call/tool-call.decider';
export type { ToolCallInput, ToolCallState } from './tool-call/tool-call.decider';
export { codebaseIndexView, updateCodebaseIndex, changedPaths } from './codebase-index/codebase-index';
export type { IndexAppend } from './codebase-index/codebase-index';

/** The service, configured with where it may work and what it may run. */
export function toolExecutionServiceWith(options: ToolExecutionOptions): ServiceDefinition {
  return defineService<ToolExecutionDeps>({
    name: 'tool-execution',
    usesStore: true,
    touchesProjects: true,
    start: (ports) => toolExecutionDeps(ports, options),
    handlers: { 'tool.execute': execute, 'index.map': indexMap },
    // Recovery first: a call its dead predecessor left running is recorded before any request or cancellation is taken.
    processors: { 'interrupted calls': recoverInterrupted, 'tool.cancel': followCancellations },
  });
}

/** Project roots confined by the shell's STAGECRAFT_PROJECT_ROOTS, when set. */
export const toolExecutionService: ServiceDefinition = toolExecutionServiceWith({});
