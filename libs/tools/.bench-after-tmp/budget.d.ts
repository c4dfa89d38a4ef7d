import { ToolName } from '@stagecraft/contracts';
/**
 * How long one tool call may take from request to recorded result: for a command its timeout and the
 * kill grace, plus room to record. Past it, an unsettled call was interrupted; a caller waits this long.
 */
export declare function toolCallBudgetMs(tool: ToolName, args: Record<string, unknown>): number;
//# sourceMappingURL=budget.d.ts.map