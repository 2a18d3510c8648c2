import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';

/** One telemetry item as the Application Insights ingestion endpoint (`/v2.1/track`) receives it. */
export interface Envelope {
  name: string;
  iKey: string;
  data?: { baseType?: string; baseData?: Record<string, unknown> };
}

export interface IngestionStandIn {
  /** `https://127.0.0.1:<port>/`, the connection string's `IngestionEndpoint`. */
  endpoint: string;
  /** The self-signed certificate the SDK's process must trust (`NODE_EXTRA_CA_CERTS`). */
  certificateFile: string;
  /** Items received so far, of one instrumentation key. */
  received(iKey: string): Envelope[];
  /** From now on refuses the items of `iKey` (400, not retriable), as ingestion refuses a bad key. */
  refuse(iKey: string): void;
  stop(): Promise<void>;
}

/**
 * An HTTPS server answering as the Application Insights ingestion endpoint does (`POST
 * /v2.1/track`, a gzipped JSON array of envelopes, answered with `itemsReceived` /
 * `itemsAccepted` / `errors`). The SDK sends only over HTTPS, so the server has a certificate
 * for 127.0.0.1 made by `openssl` in `dir`.
 */
export async function startIngestionStandIn(dir: string): Promise<IngestionStandIn> {
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  const items: Envelope[] = [];
  const refused = new Set<string>();
  const server = https.createServer({ key: await fs.readFile(key), cert: await fs.readFile(cert) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const envelopes = JSON.parse((req.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8')) as Envelope[];
      const refuse = req.method !== 'POST' || req.url !== '/v2.1/track' || envelopes.some((e) => refused.has(e.iKey));
      if (!refuse) items.push(...envelopes);
      res.writeHead(refuse ? 400 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        itemsReceived: envelopes.length,
        itemsAccepted: refuse ? 0 : envelopes.length,
        errors: refuse ? envelopes.map((_, index) => ({ index, statusCode: 400, message: 'Invalid instrumentation key' })) : [],
      }));
    });
  });
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `https://127.0.0.1:${port}/`,
    certificateFile: cert,
    received: (iKey) => items.filter((e) => e.iKey === iKey),
    refuse: (iKey) => void refused.add(iKey),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
