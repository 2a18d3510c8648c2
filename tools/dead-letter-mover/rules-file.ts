import { UsageError } from '../../src/cli/cli-error';
import type { Rule } from '../../src/config/requeue-rules';
import { parseRulesText, readRulesFile } from '../../src/config/requeue-rules-schema';
import { ConfigValidationError } from '../../src/platform/config-issue';

/**
 * The rules file as the command line reads it: validated by `src/config/requeue-rules-schema.ts`,
 * a problem is a bad argument (exit code 2), so its error becomes a UsageError with the same text.
 */

function asUsageError(err: unknown): unknown {
  return err instanceof ConfigValidationError ? new UsageError(err.message) : err;
}

/** Parses rules text (YAML or JSON). @throws UsageError naming the file (and line) of any problem. */
export function parseRules(text: string, file: string): Rule[] {
  try {
    return parseRulesText(text, file);
  } catch (err) {
    throw asUsageError(err);
  }
}

/**
 * Reads and validates a rules file; messages name it as `label` (default: the path).
 * @throws UsageError when it cannot be read or is invalid.
 */
export async function loadRulesFile(file: string, label: string = file): Promise<Rule[]> {
  try {
    return await readRulesFile(file, label);
  } catch (err) {
    throw asUsageError(err);
  }
}
