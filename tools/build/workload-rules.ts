// The rules every workload keeps (deploy/README.md, "What every workload gets"), shared by the
// file-level and the rendered-overlay tests.

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type?: string };
}

export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
  exec?: { command: string[] };
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: { name: string; key: string } };
}

export interface Container {
  name: string;
  image?: string;
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  volumeMounts?: { name: string; mountPath: string }[];
}

export interface PodSpec {
  securityContext?: SecurityContext;
  automountServiceAccountToken?: boolean;
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; emptyDir?: object }[];
}

export interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: {
    replicas?: number;
    minReplicas?: number;
    maxReplicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
    podSelector?: { matchLabels?: Record<string, string> };
    ingress?: { from?: { podSelector?: { matchLabels?: Record<string, string> } }[]; ports?: { port: string | number }[] }[];
    ports?: { name?: string; port: number; targetPort?: string | number }[];
    clusterIP?: string;
  };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** What keeps a workload from the restricted Pod Security Standard and our resource rules; [] when none. */
export function hardeningProblems(doc: K8sObject): string[] {
  const problems: string[] = [];
  const spec = podSpec(doc);
  if (!spec || spec.containers.length === 0) return ['no pod template'];
  const pod = spec.securityContext ?? {};
  if (spec.automountServiceAccountToken !== false) problems.push('pod: automountServiceAccountToken is not false');
  for (const c of allContainers(spec)) {
    const sc = c.securityContext ?? {};
    const where = `container ${c.name}`;
    for (const kind of ['requests', 'limits'] as const) {
      for (const resource of ['cpu', 'memory']) {
        if (!c.resources?.[kind]?.[resource]) problems.push(`${where}: no resources.${kind}.${resource}`);
      }
    }
    if (sc.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
    if (sc.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
    if ((sc.runAsNonRoot ?? pod.runAsNonRoot) !== true) problems.push(`${where}: runAsNonRoot is not true`);
    if ((sc.runAsUser ?? pod.runAsUser) === 0) problems.push(`${where}: runs as uid 0`);
    if (sc.privileged === true) problems.push(`${where}: privileged`);
    if (!sc.capabilities?.drop?.includes('ALL')) problems.push(`${where}: capabilities.drop lacks ALL`);
    if ((sc.capabilities?.add ?? []).length > 0) problems.push(`${where}: adds capabilities`);
    if ((sc.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault') problems.push(`${where}: seccompProfile is not RuntimeDefault`);
  }
  return problems;
}

export const podSpec = (doc: K8sObject) => doc.spec?.template?.spec as PodSpec;
export const allContainers = (spec: PodSpec) => [...spec.containers, ...(spec.initContainers ?? [])];
