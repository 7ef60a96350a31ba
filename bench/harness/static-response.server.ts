import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * The baseline: a bare node:http server that answers every request with one captured response.
 * It runs as its own process, like the gateway, so neither shares an event loop with autocannon.
 */
function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const body = readFileSync(requiredEnv('STATIC_BODY_FILE'));
const contentType = requiredEnv('STATIC_CONTENT_TYPE');
const port = Number(requiredEnv('PORT'));

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  res.end(body);
});
// Same keep-alive as the gateway, so both keep autocannon's connections open for the whole run.
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => console.log(`static response server listening on ${port}`));

const shutdown = () => server.close(() => process.exit(0));
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
