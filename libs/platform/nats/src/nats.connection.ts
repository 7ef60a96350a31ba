import type { Logger } from '@platform/logging';
import { connect, DebugEvents, Events, type NatsConnection } from 'nats';

export interface ConnectNatsOptions {
  /** NATS_URL; may carry credentials, which are never logged. */
  url: string;
  /** Shown by the server in connection listings (`nats server report connections`). */
  name: string;
  logger: Logger;
  /** How long the first connect may take before startup fails. */
  connectTimeoutMs?: number;
}

/**
 * Connects with reconnects that never give up: a NATS restart or rolling upgrade must not take the
 * process down, and publishes made while disconnected are buffered by the client until it is back.
 * The first connect still fails fast, so a wrong URL is a startup error rather than a silent hang.
 */
export async function connectNats({ url, name, logger, connectTimeoutMs = 5_000 }: ConnectNatsOptions): Promise<NatsConnection> {
  const log = logger.child({ component: 'nats', server: redactUrl(url) });
  const nc = await connect({
    servers: url,
    name,
    timeout: connectTimeoutMs,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    reconnectJitter: 500,
    // Detects a dead TCP peer within about 30s instead of waiting for the OS to notice.
    pingInterval: 10_000,
    maxPingOut: 3,
  });
  log.info({ serverVersion: nc.info?.version }, 'connected to NATS');
  void logStatusChanges(nc, log);
  void nc.closed().then((err) => {
    if (err) log.error({ err }, 'NATS connection closed with an error');
    else log.info('NATS connection closed');
  });
  return nc;
}

async function logStatusChanges(nc: NatsConnection, log: Logger): Promise<void> {
  for await (const status of nc.status()) {
    switch (status.type) {
      case Events.Disconnect:
        log.warn({ server: status.data }, 'disconnected from NATS; reconnecting');
        break;
      case Events.Reconnect:
        log.info({ server: status.data }, 'reconnected to NATS');
        break;
      case Events.LDM:
        log.warn('NATS server entering lame duck mode');
        break;
      case Events.Error:
        log.error({ error: status.data, permission: status.permissionContext }, 'NATS async error');
        break;
      case DebugEvents.StaleConnection:
        log.warn('NATS connection stale');
        break;
      default:
        break;
    }
  }
}

/**
 * Readiness probe: resolves with the round-trip time in ms, rejects when the server does not answer
 * in time. Without the timeout a request made while reconnecting would wait for the reconnect.
 */
export async function pingNats(nc: NatsConnection, { timeoutMs = 2_000 }: { timeoutMs?: number } = {}): Promise<number> {
  if (nc.isClosed()) throw new Error('NATS connection is closed');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`NATS did not answer a ping within ${timeoutMs}ms`)), timeoutMs);
  });
  try {
    return await Promise.race([nc.rtt(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Drains (delivers what was already received to subscribers, flushes pending publishes) and closes.
 * Falls back to a hard close when draining takes too long, so SIGTERM handling stays bounded.
 */
export async function closeNats(nc: NatsConnection, { timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<void> {
  if (nc.isClosed()) return;
  if (nc.isDraining()) {
    await nc.closed();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([nc.drain().then(() => 'drained' as const), timedOut]);
    if (outcome === 'timeout') await nc.close();
  } finally {
    clearTimeout(timer);
  }
}

/** The server address without user info, for logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '[unparseable NATS_URL]';
  }
}
