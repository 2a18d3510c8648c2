import type { SingleTarget } from '../../connectors/base/apply-one-by-one';
import type { TargetConnector } from '../../connectors/base/target-connector';

/**
 * A registry's target with the adapter's own single-message methods (`invokeAction`,
 * `getTargetVersion`), which the port leaves out: tests of one adapter call them directly.
 * @throws Error when the adapter has none of them.
 */
export function singleTarget(target: TargetConnector): TargetConnector & SingleTarget {
  const candidate = target as TargetConnector & Partial<SingleTarget>;
  if (typeof candidate.invokeAction !== 'function' || typeof candidate.getTargetVersion !== 'function') {
    throw new Error(`${target.constructor.name} has no single-message methods (invokeAction, getTargetVersion)`);
  }
  return candidate as TargetConnector & SingleTarget;
}
