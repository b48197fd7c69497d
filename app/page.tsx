export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-10">
      <h1 className="text-2xl font-semibold">Bullpen</h1>
      <p className="mt-2 text-zinc-600">
        The MCP endpoint is at <code>/api/mcp</code>. Mint an agent key with <code>npx bullpen agent add NAME</code>.
      </p>
    </main>
  );
}
