import { endpointServing, SERVICE_ENDPOINTS } from './service-endpoints';

describe('SERVICE_ENDPOINTS', () => {
  const entries = Object.values(SERVICE_ENDPOINTS);

  it('gives every service a port of its own', () => {
    const ports = entries.map((entry) => entry.port);
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeGreaterThan(1024);
  });

  it('derives the address a peer dials by default and the address variable from the label', () => {
    for (const entry of entries) {
      expect(entry.defaultAddress).toBe(`127.0.0.1:${entry.port}`);
      expect(entry.addressVariable).toBe(`${entry.label.toUpperCase().replace(/-/g, '_')}_ADDR`);
    }
  });

  it('finds the entry of a generated service definition, and none for a definition it does not list', () => {
    for (const entry of entries) expect(endpointServing(entry.definition)).toBe(entry);
    expect(endpointServing({})).toBeUndefined();
  });
});
