import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { APPS, grpcPortOf } from './apps.registry';

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
});
