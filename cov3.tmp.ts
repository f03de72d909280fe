import { coverageViolations } from './src/gen/index.ts';
const v = coverageViolations().cases.find(c => c.label.constraintId === 'commitOperations/body/ops[].base_revision_id#required')!;
console.log(v.label.path, JSON.stringify((v.body as any).ops.map((o: any) => [o.type, o.artifact_id.slice(0,4), o.revision_id.slice(0,4), o.base_revision_id?.slice?.(0,4) ?? o.base_revision_id])));
