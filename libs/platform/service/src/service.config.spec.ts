import { z } from '@platform/config';
import { peerAddressFields } from './service.config';

describe(peerAddressFields.name, () => {
  const schema = z.object(peerAddressFields([{ addressVariable: 'TEMPLATES_ADDR', defaultAddress: '127.0.0.1:50056' }]));
  const parse = (value: string | undefined) => schema.safeParse({ TEMPLATES_ADDR: value });

  it('takes host:port, defaulting to the npm start address, or several replicas as an ipv4: list', () => {
    expect(parse(undefined).data).toEqual({ TEMPLATES_ADDR: '127.0.0.1:50056' });
    expect(parse('templates:50056').success).toBe(true);
    expect(parse('ipv4:127.0.0.1:50056,127.0.0.1:50156').success).toBe(true);
  });

  it.each(['templates', 'templates:port', 'a:1,b:2', 'ipv4:templates:50056', 'ipv4:127.0.0.1:50056,', 'dns:///templates:50056'])('refuses %j', (value) => {
    expect(parse(value).success).toBe(false);
  });
});
