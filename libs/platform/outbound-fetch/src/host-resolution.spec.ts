import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookupFromCheckedAddresses } from './host-resolution';

type LookupResult = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function callLookup(addresses: LookupAddress[], options: LookupOptions): LookupResult {
  let result: LookupResult | undefined;
  lookupFromCheckedAddresses(addresses)('feeds.example', options, (error, address, family) => {
    result = { error, address, family };
  });
  if (!result) throw new Error('lookup did not answer synchronously');
  return result;
}

describe(lookupFromCheckedAddresses.name, () => {
  const checked: LookupAddress[] = [
    { address: '2606:4700::1', family: 6 },
    { address: '93.184.216.34', family: 4 },
  ];

  it('answers all checked addresses when asked for all (happy eyeballs)', () => {
    expect(callLookup(checked, { all: true })).toEqual({ error: null, address: checked, family: undefined });
  });

  it('answers the first address of the requested family', () => {
    expect(callLookup(checked, { family: 4 })).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(callLookup(checked, { family: 'IPv6' })).toEqual({ error: null, address: '2606:4700::1', family: 6 });
  });

  it('never answers anything that was not checked', () => {
    const { error } = callLookup([{ address: '93.184.216.34', family: 4 }], { family: 6 });

    expect(error?.code).toBe('ENOTFOUND');
  });
});
