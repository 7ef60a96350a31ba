import { createApiClient } from './index';

describe('createApiClient', () => {
  const answering = (seen: Request[]) => async (request: Request) => {
    seen.push(request);
    return new Response(JSON.stringify({ idx: 7, message: 'created' }), { status: 201, headers: { 'content-type': 'application/json' } });
  };

  it('sends the API key as a bearer token to the typed path, through the given fetch', async () => {
    const seen: Request[] = [];
    const client = createApiClient({ baseUrl: 'http://gateway.test', apiKey: 'key-1', fetch: answering(seen) });
    const { data, response } = await client.POST('/v2/org/{orgId}/retail-media-channels', {
      params: { path: { orgId: 'org-a' } },
      body: { name: 'Web', type: 'On-site', adServerId: 'gam', activationConfiguration: { creativeGeneration: true, tagGeneration: false } },
    });
    expect(response.status).toBe(201);
    expect(data).toEqual({ idx: 7, message: 'created' });
    expect(seen[0].url).toBe('http://gateway.test/v2/org/org-a/retail-media-channels');
    expect(seen[0].headers.get('authorization')).toBe('Bearer key-1');
  });

  it('sends the admin token the same way, and no header without a credential', async () => {
    const seen: Request[] = [];
    await createApiClient({ baseUrl: 'http://gateway.test', adminToken: 'admin-1', fetch: answering(seen) }).POST('/admin/v1/orgs', {
      body: { name: 'Org', isRetailer: true },
    });
    await createApiClient({ baseUrl: 'http://gateway.test', fetch: answering(seen) }).GET('/v2/ad-servers');
    expect(seen.map((request) => request.headers.get('authorization'))).toEqual(['Bearer admin-1', null]);
  });

  it('refuses two credentials at once', () => {
    expect(() => createApiClient({ baseUrl: 'http://gateway.test', apiKey: 'k', adminToken: 't' })).toThrow(/not both/);
  });
});
