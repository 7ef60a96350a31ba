import { MAX_REPLICAS, parseReplicas, replicaName, schemaMigrationsFor, serviceReplicaAddresses } from './replicas';

const KNOWN = ['gateway', 'templates', 'storage-worker', 'export-renderer'];

describe(parseReplicas.name, () => {
  it('reads --replicas <list> and --replicas=<list>; apps not named are absent (one replica)', () => {
    expect([...parseReplicas(['--replicas', 'storage-worker=3,templates=2'], KNOWN)]).toEqual([
      ['storage-worker', 3],
      ['templates', 2],
    ]);
    expect([...parseReplicas(['--replicas=gateway=2'], KNOWN)]).toEqual([['gateway', 2]]);
    expect(parseReplicas([], KNOWN).size).toBe(0);
  });

  it.each([
    [['--replicas', 'nope=2'], /unknown app "nope"/],
    [['--replicas', 'templates=0'], /n from 1 to 9/],
    [['--replicas', `templates=${MAX_REPLICAS + 1}`], /n from 1 to 9/],
    [['--replicas', 'templates=two'], /n from 1 to 9/],
    [['--replicas', 'templates=2=3'], /n from 1 to 9/],
    [['--replicas'], /needs <app>=<n>/],
    [['--replica', 'templates=2'], /unknown argument --replica/],
  ])('refuses %j', (args, message) => {
    expect(() => parseReplicas(args, KNOWN)).toThrow(message);
  });
});

describe('telling replicas apart', () => {
  it('names a lone app by its name and replicas <app>#<i>', () => {
    expect(replicaName('templates', 0, 1)).toBe('templates');
    expect([0, 1, 2].map((i) => replicaName('storage-worker', i, 3))).toEqual(['storage-worker#1', 'storage-worker#2', 'storage-worker#3']);
  });

  it('gives service replicas ports 100 apart and their callers one address, or an ipv4: list to round-robin over', () => {
    expect(serviceReplicaAddresses(50056, 1)).toEqual({ ports: [50056], address: '127.0.0.1:50056' });
    expect(serviceReplicaAddresses(50056, 2)).toEqual({ ports: [50056, 50156], address: 'ipv4:127.0.0.1:50056,127.0.0.1:50156' });
  });

  it('lets the first replica migrate and the others require a current schema', () => {
    expect([0, 1, 2].map(schemaMigrationsFor)).toEqual(['apply', 'require-current', 'require-current']);
  });
});
