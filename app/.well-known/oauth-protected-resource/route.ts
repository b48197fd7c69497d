import { requestOrigin } from '@/lib/server/config';

export const dynamic = 'force-dynamic';

/** OAuth 2.0 protected-resource metadata (RFC 9728) for the MCP endpoint. */
export function GET(req: Request): Response {
  const origin = requestOrigin(req);
  return Response.json({
    resource: `${origin}/api/mcp`,
    authorization_servers: [],
    bearer_methods_supported: ['header'],
    resource_name: 'Bullpen MCP',
    resource_documentation: `${origin}/docs/connect`,
  });
}
