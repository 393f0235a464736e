/** The workspace's MCP servers file. Apart from config.ts so checking for it does not load zod. */
export const PROJECT_FILE = '.mcp.json';
