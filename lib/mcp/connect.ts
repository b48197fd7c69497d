/**
 * The MCP URL of a server, narrowed to toolsets when any are named (`?toolsets=core,handoffs`: the
 * tools the connection lists and may call). Names are passed as parsed (lib/core/toolsets.ts).
 */
export function mcpUrlFor(base: string, toolsets: readonly string[] = []): string {
  const url = `${base.replace(/\/$/, '')}/api/mcp`;
  return toolsets.length ? `${url}?toolsets=${toolsets.map(encodeURIComponent).join(',')}` : url;
}

/**
 * One shell word, single-quoted when it holds anything a shell would act on: a URL's `?` and `&`
 * are globs and job control in zsh and bash.
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The lines that connect an agent to Bullpen, shown by `bullpen agent add` and by the console's
 * "Connect an agent". The URL is quoted, so the line pastes into zsh and bash alike. Pure: safe in
 * the browser bundle.
 */
export function connectSnippets(mcpUrl: string, key: string): { cli: string; json: string } {
  return {
    cli: `claude mcp add --transport http bullpen '${mcpUrl.replace(/'/g, `'\\''`)}' --header "Authorization: Bearer ${key}"`,
    json: JSON.stringify({ mcpServers: { bullpen: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${key}` } } } }, null, 2),
  };
}
