export {loadMcpConfig, McpServerEntrySchema, McpServersSchema, PROJECT_FILE, resolveTransport} from './config.js';
export type {McpConfigSet, McpServerConfig, McpServerEntry, McpSource, McpTransportSpec} from './config.js';
export {McpHub} from './hub.js';
export type {McpHubOptions, McpServerState, McpServerStatus} from './hub.js';
export {approvedServers, approveServers, fingerprint, trustFilePath} from './trust.js';
export {MCP_PREFIX, mcpToolName, toNibTool, toParameters} from './tool.js';
export {toToolResult} from './result.js';
export {missingServerLines, prepareMcp} from './control.js';
export type {McpControl} from './control.js';
