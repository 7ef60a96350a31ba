import { isAddressAllowed, isLocalHostname, judgeAddress } from './address-policy';

describe(judgeAddress.name, () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['fec0::1', 'deprecatedSiteLocal'],
  ])('refuses %s (%s)', (address, range) => {
    expect(judgeAddress(address)).toEqual({ allowed: false, reason: expect.stringContaining(`${range} range`) });
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b::c0a8:101', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a00:1::', 'private'],
  ])('judges %s by the IPv4 address it embeds (%s)', (address, range) => {
    expect(judgeAddress(address)).toEqual({ allowed: false, reason: expect.stringMatching(new RegExp(`embeds IPv4 .* ${range} range`)) });
  });

  it('refuses IPv4-compatible ::a.b.c.d, a deprecated form with no legitimate use', () => {
    expect(judgeAddress('::808:808')).toEqual({ allowed: false, reason: expect.stringContaining('IPv4-compatible') });
    // Written with a dotted quad it is the same address (::102:304), not ::ffff:1.2.3.4.
    expect(judgeAddress('::8.8.8.8')).toEqual({ allowed: false, reason: expect.stringContaining('IPv4-compatible') });
  });

  it.each(['2130706433', '0x7f000001', '0177.0.0.1', '127.1'])('refuses the non-canonical IPv4 spelling %s instead of interpreting it', (address) => {
    expect(judgeAddress(address)).toEqual({ allowed: false, reason: expect.stringContaining('not an IP address') });
  });

  it('ignores an IPv6 zone when judging', () => {
    expect(judgeAddress('fe80::1%eth0')).toEqual({ allowed: false, reason: expect.stringContaining('linkLocal range') });
  });

  it('refuses local-use NAT64 prefixes, whose embedded address it cannot locate', () => {
    expect(isAddressAllowed('64:ff9b:1::a00:1')).toBe(false);
  });

  it('refuses what is not an IP address', () => {
    expect(judgeAddress('example.com')).toEqual({ allowed: false, reason: expect.stringContaining('not an IP address') });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows public unicast %s', (address) => {
    expect(judgeAddress(address)).toEqual({ allowed: true });
  });
});

describe(isLocalHostname.name, () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'a.b.localhost.'])('treats %s as this machine', (name) => {
    expect(isLocalHostname(name)).toBe(true);
  });

  it.each(['localhost.example.com', 'mylocalhost', 'example.com'])('leaves %s to DNS and the address check', (name) => {
    expect(isLocalHostname(name)).toBe(false);
  });
});
