import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { processRegistry } from './metrics-registry';

/**
 * Answers GET /metrics with the process registry in Prometheus text format, followed by any extra
 * registries (the gateway's HTTP metrics). Returns false for other paths so a caller can serve them.
 */
export function answerMetrics(req: IncomingMessage, res: ServerResponse, extra: readonly Registry[] = []): boolean {
  if (req.url !== '/metrics') return false;
  Promise.all([processRegistry, ...extra].map((registry) => registry.metrics())).then(
    (bodies) => res.writeHead(200, { 'Content-Type': processRegistry.contentType }).end(bodies.join('\n')),
    (error: unknown) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`metrics collection failed: ${String(error)}`),
  );
  return true;
}

/** A listener of its own for /metrics (apart from any public port); resolves once bound. */
export function serveMetrics(host: string, port: number, extra: readonly Registry[] = []): Promise<Server> {
  const server = createServer((req, res) => {
    if (!answerMetrics(req, res, extra)) res.writeHead(404).end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
