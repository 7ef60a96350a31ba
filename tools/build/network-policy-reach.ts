// Answers "may this endpoint open this connection to that one?" from NetworkPolicy objects, by the
// rules of networking.k8s.io/v1: a pod selected by no policy of a direction is open in it; a pod
// selected by one or more is open only to what one of their rules allows; a connection needs the
// source's egress and the destination's ingress. Used by the tests to read the rendered policies.
import ipaddr from 'ipaddr.js';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}
interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyPort {
  port?: number | string;
  protocol?: string;
}
interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: PolicyPort[];
}
export interface NetworkPolicy {
  metadata: { name: string; namespace?: string };
  spec: { podSelector: LabelSelector; policyTypes?: string[]; ingress?: PolicyRule[]; egress?: PolicyRule[] };
}

/** A pod (namespace, labels, IP and named ports) or an address outside the cluster (IP only). */
export interface Endpoint {
  ip: string;
  pod?: { namespace: string; labels: Record<string, string>; ports: { name?: string; containerPort: number; protocol?: string }[] };
}
export interface Port {
  number: number;
  protocol?: 'TCP' | 'UDP';
}

export function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  const exact = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return (
    exact &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      switch (operator) {
        case 'In':
          return key in labels && values.includes(labels[key]);
        case 'NotIn':
          return !(key in labels && values.includes(labels[key]));
        case 'Exists':
          return key in labels;
        case 'DoesNotExist':
          return !(key in labels);
      }
    })
  );
}

const inCidr = (ip: string, cidr: string) => ipaddr.parse(ip).match(ipaddr.parseCIDR(cidr));

function peerMatches(peer: PolicyPeer, policyNamespace: string, other: Endpoint): boolean {
  if (peer.ipBlock) return inCidr(other.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((cidr) => inCidr(other.ip, cidr));
  if (!other.pod) return false;
  const namespaceLabels = { 'kubernetes.io/metadata.name': other.pod.namespace };
  const namespaceOk = peer.namespaceSelector ? selectorMatches(peer.namespaceSelector, namespaceLabels) : other.pod.namespace === policyNamespace;
  return namespaceOk && (!peer.podSelector || selectorMatches(peer.podSelector, other.pod.labels));
}

/** A rule's port matches by number, or by name against the destination pod's named ports. */
function portMatches(ports: PolicyPort[] | undefined, port: Port, destination: Endpoint): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((rule) => {
    if ((rule.protocol ?? 'TCP') !== (port.protocol ?? 'TCP')) return false;
    if (rule.port === undefined) return true;
    if (typeof rule.port === 'number') return rule.port === port.number;
    return (destination.pod?.ports ?? []).some((named) => named.name === rule.port && named.containerPort === port.number);
  });
}

const typesOf = (policy: NetworkPolicy) => policy.spec.policyTypes ?? (policy.spec.egress ? ['Ingress', 'Egress'] : ['Ingress']);

function side(policies: NetworkPolicy[], direction: 'Ingress' | 'Egress', self: Endpoint, other: Endpoint, port: Port, destination: Endpoint): boolean {
  if (!self.pod) return true;
  const pod = self.pod;
  const selecting = policies.filter(
    (policy) =>
      (policy.metadata.namespace ?? pod.namespace) === pod.namespace &&
      typesOf(policy).includes(direction) &&
      selectorMatches(policy.spec.podSelector, pod.labels),
  );
  if (selecting.length === 0) return true;
  return selecting.some((policy) =>
    (direction === 'Ingress' ? (policy.spec.ingress ?? []) : (policy.spec.egress ?? [])).some((rule) => {
      const peers = direction === 'Ingress' ? rule.from : rule.to;
      const peerOk = !peers || peers.length === 0 || peers.some((peer) => peerMatches(peer, policy.metadata.namespace ?? pod.namespace, other));
      return peerOk && portMatches(rule.ports, port, destination);
    }),
  );
}

/** Whether `source` may connect to `destination` on `port` under these policies. */
export function mayConnect(policies: NetworkPolicy[], source: Endpoint, destination: Endpoint, port: Port): boolean {
  return side(policies, 'Egress', source, destination, port, destination) && side(policies, 'Ingress', destination, source, port, destination);
}
