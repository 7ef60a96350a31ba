import { Metadata } from '@grpc/grpc-js';
import { forwardedPrincipal } from './peer-client';

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
