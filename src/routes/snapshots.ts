import { getRouterParam, type H3, type H3Event } from 'h3';
import { authorize } from '../auth/authorize.js';
import { sandboxOf } from '../auth/identity.js';
import { contextOf } from '../http/context.js';
import { snapshotNameProblem, type SnapshotInfo, type SnapshotStore } from '../engine/snapshots.js';
import { notFound, validationFailed, type FieldProblem } from '../engine/errors.js';
import type { Runtime } from '../runtime.js';
import { readJsonObject } from './_body.js';
import { route } from './_resource.js';

/** `/api/v1/sandbox/snapshots/*`: named copies of the requester's own sandbox. */
export function addSnapshotRoutes(app: H3, runtime: Runtime, snapshots: SnapshotStore): void {
  const shape = (snapshot: SnapshotInfo) => ({ ...snapshot, createdAt: new Date(snapshot.createdAt).toISOString() });
  const nameOf = (event: H3Event) => getRouterParam(event, 'name', { decode: true }) ?? '';
  const missing = (name: string) => notFound(`this sandbox has no snapshot named ${JSON.stringify(name)}`);

  route(app, '/api/v1/sandbox/snapshots', {
    GET: { scope: 'sandbox:read', handler: (event) => ({ data: snapshots.list(sandboxOf(event)).map(shape) }) },
    POST: {
      scope: 'sandbox:write',
      note: 'replacing a snapshot by its name needs sandbox:delete too',
      handler: async (event) => {
        const sandbox = sandboxOf(event);
        const body = await readJsonObject(event, runtime.config.limits.bodyBytes);
        const problems: FieldProblem[] = Object.keys(body)
          .filter((key) => key !== 'name')
          .map((key) => ({ path: `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: 'is not a known field' }));
        const nameProblem = snapshotNameProblem(body.name);
        if (nameProblem) problems.unshift(nameProblem);
        if (problems.length) throw validationFailed(problems);
        // Replacing one by its name deletes it first: that needs what deleting needs.
        if (snapshots.find(sandbox, body.name as string)) authorize(contextOf(event), ['sandbox:delete']);
        return shape(snapshots.take(sandbox, body.name));
      },
    },
  });
  route(app, '/api/v1/sandbox/snapshots/:name', {
    GET: {
      scope: 'sandbox:read',
      handler: (event) => {
        const name = nameOf(event);
        const snapshot = snapshots.find(sandboxOf(event), name);
        if (!snapshot) throw missing(name);
        return shape(snapshot);
      },
    },
    DELETE: {
      scope: 'sandbox:delete',
      handler: (event) => {
        const name = nameOf(event);
        if (!snapshots.delete(sandboxOf(event), name)) throw missing(name);
        return { message: `snapshot ${JSON.stringify(name)} deleted`, name };
      },
    },
  });
  route(app, '/api/v1/sandbox/snapshots/:name/restore', {
    // A restore replaces the whole sandbox, like a reset.
    POST: {
      scope: 'sandbox:reset',
      handler: (event) => {
        const sandbox = sandboxOf(event);
        const name = nameOf(event);
        const restored = snapshots.restore(sandbox, name);
        if (!restored) throw missing(name);
        return { message: `sandbox restored from snapshot ${JSON.stringify(name)}`, sandbox, snapshot: shape(restored) };
      },
    },
  });
}
