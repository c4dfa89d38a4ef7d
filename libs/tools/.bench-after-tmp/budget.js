"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.toolCallBudgetMs = toolCallBudgetMs;
const context_1 = require("./context");
/** Room past a call's own time limit to record its result. */
const RECORD_SLACK_MS = 10_000;
/** File tools have no timeout argument; none takes anywhere near this long. */
const FILE_TOOL_BUDGET_MS = 60_000;
/**
 * How long one tool call may take from request to recorded result: for a command its timeout and the
 * kill grace, plus room to record. Past it, an unsettled call was interrupted; a caller waits this long.
 */
function toolCallBudgetMs(tool, args) {
    if (tool !== 'run_command')
        return FILE_TOOL_BUDGET_MS;
    const asked = args['timeoutMs'];
    const timeout = typeof asked === 'number' && asked > 0 ? Math.min(asked, context_1.LIMITS.commandTimeoutMs) : context_1.LIMITS.commandDefaultTimeoutMs;
    return timeout + context_1.LIMITS.commandKillGraceMs + RECORD_SLACK_MS;
}
//# sourceMappingURL=budget.js.map