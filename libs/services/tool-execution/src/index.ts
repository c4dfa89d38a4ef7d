import { Module } from '@nestjs/common';
import { ServiceDefinition } from '@stagecraft/service-shell';
import { TOOL_EXECUTION_OPTIONS, ToolExecutionOptions } from './options';
import { ToolExecutionController } from './tool-execution.controller';

export { TOOL_EXECUTION_OPTIONS, toolExecutionOptionsFromEnv } from './options';
export type { ToolExecutionOptions } from './options';
export { executeToolCall, recoverInterruptedCalls } from './execute-tool-call';
export type { ToolCallPorts } from './execute-tool-call';
export { foldToolCall } from './tool-call-record';
export { codebaseIndexView, updateCodebaseIndex, changedPaths } from './codebase-index';
export type { IndexAppend } from './codebase-index';
export type { ToolCallRecord } from './tool-call-record';

/** A Nest module for the service, configured with where it may work and what it may run. */
export function toolExecutionModule(options: ToolExecutionOptions = {}): new () => unknown {
  @Module({ controllers: [ToolExecutionController], providers: [{ provide: TOOL_EXECUTION_OPTIONS, useValue: options }] })
  class ToolExecutionModule {}
  return ToolExecutionModule;
}

export function toolExecutionServiceWith(options: ToolExecutionOptions): ServiceDefinition {
  return { name: 'tool-execution', module: toolExecutionModule(options), usesStore: true, touchesProjects: true };
}

/** Project roots confined by the shell's STAGECRAFT_PROJECT_ROOTS, when set. */
export const ToolExecutionModule = toolExecutionModule();
export const toolExecutionService: ServiceDefinition = {
  name: 'tool-execution',
  module: ToolExecutionModule,
  usesStore: true,
  touchesProjects: true,
};
