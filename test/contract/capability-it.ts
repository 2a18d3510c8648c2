/**
 * `it` for a contract case that needs `uses`, or `it.skip` when the system under test cannot do
 * one of them — printed, not silent: which case this system skips, and why. Shared by the
 * target, source and metrics contracts.
 * @param label e.g. `Source contract SqlSource on SQLite`
 * @param unsupported what the system cannot do, with the reason
 * @param timeoutMs per-case timeout. Default: jest's.
 */
export function capabilityIt<C extends string>(
  label: string,
  unsupported: Partial<Record<C, string>>,
  timeoutMs?: number,
): (uses: readonly C[]) => (title: string, fn: () => Promise<void>) => void {
  return (uses) => (title, fn) => {
    const missing = uses.filter((u) => unsupported[u] !== undefined);
    if (missing.length === 0) {
      it(title, fn, timeoutMs);
      return;
    }
    const reason = missing.map((u) => `${u}: ${unsupported[u]}`).join('; ');
    console.log(`${label}: skipped "${title}" (unsupported ${reason})`);
    it.skip(`${title} [unsupported ${reason}]`, fn);
  };
}
