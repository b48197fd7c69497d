/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and data files; pg has optional native parts: load them from node_modules as-is.
  serverExternalPackages: ['@electric-sql/pglite', '@electric-sql/pglite-pgvector', 'pg'],
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
