import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, CallToolResult, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ErrorReply, STAGECRAFT_VERSION, toErrorReply } from '@stagecraft/contracts';
import type { McpContext } from './context';
import { registerResources } from './resources';
import { TOOLS, inputJsonSchema } from './tools';

/** A tool's failure as the model and the client see it: readable text, and the structured error every subject answers. */
export function toolError(reply: ErrorReply): CallToolResult {
  const issues = reply.issues.map((issue) => `\n- ${issue.path.join('.') || '(root)'}: ${issue.message}`).join('');
  return { isError: true, content: [{ type: 'text', text: `${reply.code}: ${reply.message}${issues}` }], structuredContent: reply };
}

/** The tools as a client lists them, built once: an HTTP server builds an MCP server per session. */
let schemas: { name: string; description: string; inputSchema: ReturnType<typeof inputJsonSchema> }[] | undefined;
const toolSchemas = () =>
  (schemas ??= TOOLS.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: inputJsonSchema(tool.input) })));

/**
 * The Stagecraft MCP server over one context. Tools are served through the low-level handlers so that
 * bad arguments get the same `{ code, message, issues }` as a bad request on a subject (McpServer's own
 * validation answers only a message); resources through McpServer's templates.
 */
export function createMcpServer(context: McpContext): McpServer {
  const mcp = new McpServer({ name: 'stagecraft', version: STAGECRAFT_VERSION });
  const server = mcp.server;
  server.registerCapabilities({ tools: {} });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolSchemas() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
    // A client that sends a progress token hears each step of a long call (and may keep waiting on it).
    const progressToken = request.params._meta?.progressToken;
    let step = 0;
    const progress =
      progressToken === undefined
        ? undefined
        : (message: string) =>
            void extra
              .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++step, message } })
              .catch(() => undefined);
    try {
      const result = await tool.run(context, request.params.arguments, progress);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      return toolError(toErrorReply(error));
    }
  });
  registerResources(mcp, context);
  return mcp;
}
