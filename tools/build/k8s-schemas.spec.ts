// Every object of every overlay, as `kubectl kustomize` renders it, validated against the OpenAPI
// schemas of a pinned Kubernetes release (kubernetes-models, compiled from Kubernetes v1.36's
// OpenAPI since its 5.0.0) and KEDA's ScaledObject against KEDA's CRD schema (@kubernetes-models/keda,
// generated from the KEDA 2.19 CRDs since its 1.0.0), so no copy of either schema is kept here. An
// object of a kind no schema covers fails.
// The schemas type every field but, like the API's OpenAPI, do not refuse unknown fields: the
// workload rules (app-deployment.spec.ts) check the fields that matter by name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './bundle';
import { OVERLAYS, renderOverlay, type RenderedObject } from './deploy-inventory';

/** The schema packages, pinned exactly in package.json so an upgrade is a reviewed change. */
const SCHEMA_PACKAGES = { 'kubernetes-models': '5.1.0', '@kubernetes-models/keda': '2.0.0' };
/** API groups served by a CRD, and the package that holds its schema; every other group is Kubernetes'. */
const CRD_GROUPS: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda' };

interface Model {
  validate(): void;
}
type ModelClass = new (data: object) => Model;

function moduleOf(apiVersion: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const pkg = CRD_GROUPS[group] ?? 'kubernetes-models';
  return group === '' ? `${pkg}/${version}` : `${pkg}/${group}/${version}`;
}

/**
 * kustomize wraps long base64 values (Secret data) over lines; the API server's base64 decoder skips
 * line breaks, the schema's `byte` format does not. Validate what the server decodes.
 */
function asDecodedByServer(object: RenderedObject): RenderedObject {
  if (object.kind !== 'Secret' || typeof object.data !== 'object' || object.data === null) return object;
  const data = Object.fromEntries(Object.entries(object.data as Record<string, string>).map(([key, value]) => [key, value.replace(/[\r\n]/g, '')]));
  return { ...object, data };
}

/** The schema errors of one object; a kind with no schema is an error too. */
async function schemaErrors(object: RenderedObject): Promise<string[]> {
  const specifier = moduleOf(object.apiVersion ?? '');
  let models: Record<string, ModelClass>;
  try {
    models = (await import(specifier)) as Record<string, ModelClass>;
  } catch {
    return [`no schema for apiVersion ${object.apiVersion}`];
  }
  const Model = models[object.kind];
  if (typeof Model !== 'function') return [`no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(asDecodedByServer(object)).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message?: string }[] }).errors;
    return errors ? errors.map((e) => `${e.instancePath} ${e.message}`) : [String(error)];
  }
}

describe('Kubernetes API schemas', () => {
  it('come from the exact package versions pinned in package.json', () => {
    const manifest = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    for (const [name, version] of Object.entries(SCHEMA_PACKAGES)) {
      const installed = (JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
      expect({ name, pinned: manifest.devDependencies[name], installed }).toEqual({ name, pinned: version, installed: version });
    }
  });

  describe.each(OVERLAYS)('overlays/%s', (overlay) => {
    it('every rendered object is valid', async () => {
      const objects = renderOverlay(overlay);
      expect(objects.length).toBeGreaterThan(10);
      const invalid: Record<string, string[]> = {};
      for (const object of objects) {
        const errors = await schemaErrors(object);
        if (errors.length > 0) invalid[`${object.kind}/${object.metadata.name}`] = errors;
      }
      expect(invalid).toEqual({});
    });
  });

  describe('refuse what the API server would', () => {
    const first = (overlay: string, kind: string) => structuredClone(renderOverlay(overlay).find((object) => object.kind === kind) as RenderedObject);

    it('a container port given as a name where a number is required', async () => {
      const deployment = first('dev', 'Deployment') as RenderedObject & { spec: { template: { spec: { containers: { ports: object[] }[] } } } };
      deployment.spec.template.spec.containers[0].ports = [{ containerPort: 'http' }];
      expect(await schemaErrors(deployment)).toEqual([expect.stringMatching(/containerPort must be integer/)]);
    });

    it('a NetworkPolicy rule with a CIDR that is not one', async () => {
      const policy = first('dev', 'NetworkPolicy');
      policy.spec = { podSelector: {}, egress: [{ to: [{ ipBlock: { except: [] } }] }] };
      expect((await schemaErrors(policy)).join('\n')).toMatch(/ipBlock must have required property cidr/);
    });

    it('a ScaledObject without its scale target', async () => {
      const scaled = first('production-keda', 'ScaledObject');
      delete scaled.spec?.scaleTargetRef;
      expect((await schemaErrors(scaled)).join('\n')).toMatch(/spec must have required property scaleTargetRef/);
    });

    it('a kind no schema covers', async () => {
      expect(await schemaErrors({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toEqual([
        'no schema for apiVersion example.com/v1',
      ]);
      expect(await schemaErrors({ apiVersion: 'apps/v1', kind: 'Widget', metadata: { name: 'w' } })).toEqual(['no schema for apps/v1 Widget']);
    });
  });
});
