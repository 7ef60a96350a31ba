import net, { Socket } from 'node:net';
import { OutboundFetchError } from './errors';
import { assertConnectedAddressAllowed } from './guarded-connection';
import { startTestServer, TestServer } from './testing/test-server';

describe(assertConnectedAddressAllowed.name, () => {
  let server: TestServer;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    server = await startTestServer((_request, response) => response.end());
  });

  afterAll(async () => {
    sockets.forEach((socket) => socket.destroy());
    await server.close();
  });

  const connectTo = (host: string, port: number) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = net.connect({ host, port }, () => resolve(socket));
      sockets.push(socket);
      socket.once('error', reject);
    });

  it('refuses a socket whose peer turned out to be loopback', async () => {
    const socket = await connectTo('127.0.0.1', server.port);

    let thrown: unknown;
    try {
      assertConnectedAddressAllowed(socket, new URL('https://looks-public.example/feed'));
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(OutboundFetchError);
    expect(thrown).toMatchObject({ code: 'OUTBOUND_ADDRESS_NOT_ALLOWED', url: 'https://looks-public.example/feed' });
    expect((thrown as Error).message).toContain('the connection reached an address that is not allowed: 127.0.0.1 is in the loopback range');
  });

  it('refuses a socket whose peer is unknown (not connected)', () => {
    const socket = new Socket();
    sockets.push(socket);

    expect(() => assertConnectedAddressAllowed(socket, new URL('http://feeds.example/'))).toThrow('the connected address is unknown');
  });
});
