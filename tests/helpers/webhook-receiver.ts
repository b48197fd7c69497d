import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP receiver for webhook tests and benches: it checks every request's signature with the
 * secret it is given (HMAC-SHA256 of "<timestamp>.<body>", as lib/jobs/webhooks.ts signs), records
 * what arrived, and answers `failFirst` requests with 503 before it answers 200.
 */
export type Received = { body: any; raw: string; headers: Record<string, string | string[] | undefined>; signatureOk: boolean; status: number };

export type Receiver = {
  url: string;
  received: Received[];
  secret: string | null;
  failFirst: number;
  /** Always answer this status (e.g. 500 for a receiver that is down); null: failFirst, then 200. */
  always: number | null;
  close: () => Promise<void>;
};

export function verifySignature(secret: string, timestamp: string, raw: string, header: string): boolean {
  const want = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex')}`);
  const got = Buffer.from(header);
  return want.length === got.length && timingSafeEqual(want, got);
}

export async function startReceiver(): Promise<Receiver> {
  const r: Receiver = { url: '', received: [], secret: null, failFirst: 0, always: null, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-bullpen-timestamp'] ?? '');
      const sig = String(req.headers['x-bullpen-signature'] ?? '');
      const signatureOk = r.secret !== null && verifySignature(r.secret, ts, raw, sig);
      const n = r.received.length;
      const status = !signatureOk ? 401 : r.always ?? (n < r.failFirst ? 503 : 200);
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = null;
      }
      r.received.push({ body, raw, headers: req.headers, signatureOk, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try later');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return r;
}
