import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A RemoteExecutionContext as Dataverse serializes it (`events/*.json`): `update-contact-webhook` is
 * the webhook body Microsoft documents ("Use WebHooks to create external handlers for server
 * events"); the others are built the same way for an account table (Create with a post-image,
 * Delete with a reference as Target, an Update whose parameters and images were removed for size).
 */
export function dataverseEvent(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(__dirname, 'events', `${name}.json`), 'utf8')) as Record<string, unknown>;
}
