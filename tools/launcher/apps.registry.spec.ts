import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { APPS, grpcPortOf, listenPortsOf, type AppSpec } from './apps.registry';

describe('the launcher app registry', () => {
  const services = APPS.filter((app) => 'grpcPort' in app.readiness);

  it('starts every gRPC service on the port SERVICE_ENDPOINTS declares, handing peers its address variable', () => {
    expect(services.map((app) => [app.name, grpcPortOf(app, undefined), (app.readiness as { addressVariable: string }).addressVariable])).toEqual(
      Object.values(SERVICE_ENDPOINTS).map((endpoint) => [endpoint.label, endpoint.port, endpoint.addressVariable]),
    );
  });

  it('moves the declared ports as a block to GRPC_PORT_BASE, keeping them distinct', () => {
    const moved = services.map((app) => grpcPortOf(app, 20_000) as number);
    expect(Math.min(...moved)).toBe(20_000);
    expect(new Set(moved).size).toBe(services.length);
    expect(Math.max(...moved)).toBeLessThan(20_000 + APPS.length);
  });

  it('gives workers and the gateway no gRPC port', () => {
    for (const app of APPS.filter((candidate) => !services.includes(candidate))) expect(grpcPortOf(app, undefined)).toBeUndefined();
  });

  it('runs the ad server on AD_SERVER_PORT (8070 by default), clear of the gateway, whose PORT it never takes', () => {
    const adServer = APPS.find((app) => app.name === 'ad-server');
    expect(adServer?.entry).toBe('apps/ad-server/src/main.ts');
    expect(adServer?.readiness).toEqual({ httpPath: '/healthz', portVariable: 'PORT' });
    expect(listenPortsOf(adServer as AppSpec, {}, 1)).toEqual({ ports: [8070], url: 'http://127.0.0.1:8070' });
    expect(listenPortsOf(adServer as AppSpec, { AD_SERVER_PORT: '18070', PORT: '8080' }, 3)).toEqual({
      ports: [18070, 18071, 18072],
      url: 'http://127.0.0.1:18070',
    });
    // The gateway's replicas take PORT, PORT + 1, ... from 8080.
    expect(listenPortsOf(adServer as AppSpec, {}, 9)?.ports.every((port) => port < 8080)).toBe(true);
  });

  it('hands the gateway the ad server URL to forward /serve/ to, and starts the gateway last', () => {
    expect(APPS.find((app) => app.name === 'ad-server')?.listens?.urlVariable).toBe('AD_SERVER_URL');
    expect(APPS[APPS.length - 1].name).toBe('gateway');
    expect(APPS.filter((app) => app.listens).map((app) => app.name)).toEqual(['ad-server']);
  });
});
