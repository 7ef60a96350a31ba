import { Metadata, type Client } from '@grpc/grpc-js';
import { adaptPeer, forwardedPrincipal, type PeerClient, type PromiseClient } from './peer-client';

describe(forwardedPrincipal.name, () => {
  it('carries the signed principal on and nothing else of the incoming call', () => {
    const incoming = new Metadata();
    incoming.set('x-principal', 'payload');
    incoming.set('x-principal-sig', 'signature');
    incoming.set('user-agent', 'grpc-node-js/1.14');
    incoming.set('x-request-id', 'r1');
    expect(forwardedPrincipal(incoming).getMap()).toEqual({ 'x-principal': 'payload', 'x-principal-sig': 'signature' });
  });

  it('forwards nothing when the incoming call carried no principal, so the peer refuses it', () => {
    expect(forwardedPrincipal(new Metadata()).getMap()).toEqual({});
  });
});

describe(adaptPeer.name, () => {
  it('binds the adapter to the caller of each call, one call at a time', () => {
    const boundTo: Metadata[] = [];
    const peer = {
      as: (incoming: Metadata) => {
        boundTo.push(incoming);
        return { caller: incoming.get('x-principal')[0] } as unknown as PromiseClient<Client>;
      },
      close: () => undefined,
    } as PeerClient<Client>;
    const callerOf = adaptPeer(peer, (client) => ({ caller: () => (client as unknown as { caller: string }).caller }));
    const call = (principal: string) => {
      const metadata = new Metadata();
      metadata.set('x-principal', principal);
      return { metadata };
    };
    const [first, second] = [call('alice'), call('bob')];
    expect(callerOf(first).caller()).toBe('alice');
    expect(callerOf(second).caller()).toBe('bob');
    expect(boundTo).toEqual([first.metadata, second.metadata]);
  });
});
