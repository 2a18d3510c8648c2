import { pushContract } from '../../../src/push/push-contract';
import { job, mapping } from './push-fixtures';

describe('the contract', () => {
  it('gives each format its parameters and the replay window of its format', () => {
    const bc = pushContract({ ...job, push: { format: 'businesscentral', notificationUrl: 'U', imageMissingIsNull: false } }, mapping) as { maxAgeSeconds: number; parameters: Array<{ path: string }> };
    expect(bc.maxAgeSeconds).toBe(129_600);
    expect(bc.parameters.map((p) => p.path)).toContain('$.value[*].changeType');
    const dv = pushContract({ ...job, push: { format: 'dataverse', imageMissingIsNull: false } }, mapping) as { maxAgeSeconds: number; parameters: Array<{ path: string }> };
    expect(dv.maxAgeSeconds).toBe(600);
    expect(dv.parameters.map((p) => p.path)).toContain('$.PostEntityImages[0].value.Attributes');
  });
});
