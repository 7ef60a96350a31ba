import express, { Express, RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { AccessLogger, Logger } from '@platform/logging';
import { accessLog } from './access-log';
import { adServerLogo } from './ad-server-logo';
import type { HttpMetrics } from './http-metrics';
import { methodNotAllowed } from './method-not-allowed';
import { problemHandler, requestId, unknownRoute } from './problem.middleware';
import { requestScope } from './request-scope';
import { securityHeaders } from './security-headers';

export interface GatewayAppParts {
  logger: Logger;
  accessLogger: AccessLogger;
  metrics: HttpMetrics;
  trustProxy: boolean;
  openApi: object;
  health: { live: RequestHandler; ready: RequestHandler };
  routers: express.Router[];
  /** Every routed method and path, for 405 answers. */
  knownRoutes: { method: string; path: string }[];
  /**
   * Forwards the ad-serving paths (`/serve/...`) to the ad server when AD_SERVER_URL is set (`npm start`);
   * in a cluster the ingress routes them to the ad server and this is absent.
   */
  serveForward?: RequestHandler;
}

/** The express edge: security headers, request ids, routes (which read their own bodies), docs, problem+json for everything else. */
export function createGatewayApp(parts: GatewayAppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parts.trustProxy);
  app.set('query parser', 'simple');
  // API answers are computed per request; hashing each body for an ETag cost more than it saved.
  app.set('etag', false);
  app.use(requestId);
  app.use(requestScope);
  app.use(accessLog(parts.accessLogger, parts.metrics));
  // Public ad traffic, answered by the ad server with its own headers: before the security headers, and
  // before the API pipeline, so no API key is asked for.
  if (parts.serveForward) app.use(parts.serveForward);
  app.use(securityHeaders({ crossOriginResourcePolicy: { policy: 'same-site' } }));
  app.get('/healthz', parts.health.live);
  app.get('/readyz', parts.health.ready);
  // The API first: every layer before a route is one more hop for each of its requests.
  for (const router of parts.routers) app.use(router);
  app.get('/static/ad-servers/:file', adServerLogo);
  app.get('/openapi.json', (_req, res) => res.json(parts.openApi));
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(undefined, { swaggerUrl: '/openapi.json', customSiteTitle: 'Retail Media API reference' }));
  app.use(methodNotAllowed(parts.knownRoutes));
  app.use(unknownRoute);
  app.use(problemHandler(parts.logger));
  return app;
}
