// Reads the NetworkPolicies of each rendered overlay and checks who may reach whom: clients reach only
// the HTTP edges (gateway, ad server); the gateway only the gRPC services; each service only MySQL,
// NATS, object storage and the peers its peers/ folder names; workers only NATS and object storage;
// an edge that owns no schema (the ad server) only NATS; MySQL only the schema owners; public
// addresses only the apps whose code reads them through an outbound guard.
import { APPS, OVERLAYS, renderOverlay, type AppFacts, type RenderedObject } from './deploy-inventory';
import { mayConnect, type Endpoint, type NetworkPolicy, type Port } from './network-policy-reach';

const CLIENT_ON_THE_INTERNET: Endpoint = { ip: '203.0.113.7' };
const INGRESS_CONTROLLER: Endpoint = { ip: '10.1.0.9', pod: { namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' }, ports: [] } };
const KUBE_DNS: Endpoint = {
  ip: '10.96.0.10',
  pod: { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }] },
};
/** External infrastructure (production): a private address outside the namespace. */
const EXTERNAL_INFRASTRUCTURE: Endpoint = { ip: '10.40.0.5' };
const PUBLIC_SITE: Endpoint = { ip: '198.51.100.20' };
const INFRASTRUCTURE_PORTS = { mysql: 3306, nats: 4222, objectStorage: 9000 };

interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: { ports?: { name?: string; containerPort: number; protocol?: string }[] }[] };
}

/** One pod of each workload (and migration Job) of the overlay, with its template's labels and named ports. */
function podsOf(docs: RenderedObject[]): Map<string, Endpoint> {
  const pods = new Map<string, Endpoint>();
  docs
    .filter((doc) => doc.kind === 'Deployment' || doc.kind === 'StatefulSet' || doc.kind === 'Job')
    .forEach((doc, index) => {
      const template = (doc.spec as { template: PodTemplate }).template;
      pods.set(doc.metadata.name, {
        ip: `10.244.0.${index + 10}`,
        pod: {
          namespace: doc.metadata.namespace ?? 'default',
          labels: template.metadata.labels,
          ports: template.spec.containers.flatMap((c) => c.ports ?? []),
        },
      });
    });
  return pods;
}

const policiesOf = (docs: RenderedObject[]) => docs.filter((doc) => doc.kind === 'NetworkPolicy') as unknown as NetworkPolicy[];
const namedPorts = (endpoint: Endpoint) =>
  (endpoint.pod?.ports ?? []).map((port) => ({ name: port.name ?? String(port.containerPort), number: port.containerPort }));

/** Every (source -> destination:port) the policies allow among the overlay's pods and the outside endpoints. */
function reachMatrix(docs: RenderedObject[]): Set<string> {
  const policies = policiesOf(docs);
  const pods = podsOf(docs);
  const sources = new Map<string, Endpoint>([...pods, ['client', CLIENT_ON_THE_INTERNET], ['ingress-controller', INGRESS_CONTROLLER]]);
  const allowed = new Set<string>();
  for (const [sourceName, source] of sources) {
    for (const [destinationName, destination] of pods) {
      if (sourceName === destinationName) continue;
      for (const port of namedPorts(destination)) {
        if (mayConnect(policies, source, destination, { number: port.number })) allowed.add(`${sourceName} -> ${destinationName}:${port.name}`);
      }
    }
  }
  return allowed;
}

/** Every app reads object storage but an edge that owns no schema (the ad server: NATS only). */
const readsObjectStorage = (app: AppFacts) => !(app.kind === 'edge' && !app.ownsSchema);

function expectedMatrix(apps: AppFacts[], docs: RenderedObject[]): Set<string> {
  const pods = podsOf(docs);
  const expected = new Set<string>();
  const services = apps.filter((app) => app.kind === 'grpc-service').map((app) => app.name);
  // Clients reach the HTTP edges through the ingress controller or load balancer; our own pods never
  // call an edge: their egress does not allow it.
  for (const edge of apps.filter((app) => app.kind === 'edge')) {
    expected.add(`client -> ${edge.name}:http`);
    expected.add(`ingress-controller -> ${edge.name}:http`);
  }
  // Metrics: any pod of the cluster (Prometheus) may scrape, nothing outside it; our own apps' egress does not allow it.
  expected.add('ingress-controller -> gateway:metrics');
  for (const service of services) expected.add(`gateway -> ${service}:grpc`);
  for (const app of apps) for (const peer of app.peers) expected.add(`${app.name} -> ${peer}:grpc`);
  // Dev's in-namespace infrastructure: MySQL for the schema owners and their migration Jobs, NATS and object storage for every app.
  for (const app of apps) {
    if (pods.has('mariadb') && app.ownsSchema) expected.add(`${app.name} -> mariadb:mysql`);
    if (pods.has('mariadb') && app.ownsSchema) expected.add(`${app.name}-migrate -> mariadb:mysql`);
    if (pods.has('nats')) expected.add(`${app.name} -> nats:client`);
    if (pods.has('minio') && readsObjectStorage(app)) expected.add(`${app.name} -> minio:s3`);
  }
  return expected;
}

describe.each(OVERLAYS)('NetworkPolicies of overlays/%s', (overlay) => {
  const docs = () => renderOverlay(overlay);
  const pod = (name: string) => podsOf(docs()).get(name) as Endpoint;
  const reaches = (app: string, endpoint: Endpoint, port: Port) => mayConnect(policiesOf(docs()), pod(app), endpoint, port);

  it('checks every app under apps/', () => {
    for (const app of APPS) expect({ app: app.name, rendered: podsOf(docs()).has(app.name) }).toEqual({ app: app.name, rendered: true });
  });

  it('between pods and from outside: clients reach only the edges, the gateway only the services, each service only the peers it calls', () => {
    const allowed = [...reachMatrix(docs())].sort();
    expect(allowed).toEqual([...expectedMatrix(APPS, docs())].sort());
  });

  it.each(APPS.map((app) => [app.name, app] as const))('%s reaches MySQL, NATS and object storage as its kind needs, and nothing else outside', (name, app) => {
    const verdicts = {
      mysql: reaches(name, EXTERNAL_INFRASTRUCTURE, { number: INFRASTRUCTURE_PORTS.mysql }),
      nats: reaches(name, EXTERNAL_INFRASTRUCTURE, { number: INFRASTRUCTURE_PORTS.nats }),
      objectStorage: reaches(name, EXTERNAL_INFRASTRUCTURE, { number: INFRASTRUCTURE_PORTS.objectStorage }),
      dns: reaches(name, KUBE_DNS, { number: 53, protocol: 'UDP' }),
      otherPrivateService: reaches(name, EXTERNAL_INFRASTRUCTURE, { number: 5432 }),
      publicSite: reaches(name, PUBLIC_SITE, { number: 443 }),
    };
    expect(verdicts).toEqual({
      mysql: app.ownsSchema,
      nats: true,
      objectStorage: readsObjectStorage(app),
      dns: true,
      otherPrivateService: false,
      // Only through the in-app outbound guard, which refuses private addresses as the policy does.
      publicSite: app.readsPublicAddresses,
    });
  });

  it('would notice a policy missing: without default-deny, clients reach the workers', () => {
    const withoutDefaultDeny = docs().filter((doc) => !(doc.kind === 'NetworkPolicy' && doc.metadata.name === 'default-deny'));
    expect([...reachMatrix(withoutDefaultDeny)]).toContain('client -> storage-worker:health');
    expect([...reachMatrix(docs())]).not.toContain('client -> storage-worker:health');
  });
});

describe('the reach model', () => {
  it('derives the peers from the peers/ folders and the public readers from the code', () => {
    const facts = Object.fromEntries(APPS.map((app) => [app.name, { peers: app.peers, readsPublicAddresses: app.readsPublicAddresses }]));
    expect(facts['content-creative']).toEqual({
      peers: ['asset-sources', 'channels-plans', 'storage-library', 'tagging-trackers'],
      readsPublicAddresses: false,
    });
    expect(facts['asset-sources']).toEqual({ peers: ['content-creative', 'storage-library'], readsPublicAddresses: true });
    expect(facts['storage-worker']).toEqual({ peers: [], readsPublicAddresses: true });
    expect(facts['storage-library']).toEqual({ peers: [], readsPublicAddresses: true });
    expect(facts.gateway).toEqual({ peers: [], readsPublicAddresses: false });
    expect(facts['ad-server']).toEqual({ peers: [], readsPublicAddresses: true });
  });

  it('tells the schema owners from the apps that own none', () => {
    const owners = APPS.filter((app) => app.ownsSchema).map((app) => app.name);
    expect(owners).toContain('gateway');
    expect(owners).not.toContain('ad-server');
    expect(owners).not.toContain('storage-worker');
    expect(owners.filter((name) => name !== 'gateway').sort()).toEqual(
      APPS.filter((app) => app.kind === 'grpc-service')
        .map((app) => app.name)
        .sort(),
    );
  });
});
