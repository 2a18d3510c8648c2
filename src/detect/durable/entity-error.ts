import { errorMessage } from '../../platform/errors';

/**
 * An error thrown out of an entity operation, in a form whose message survives the trip to the
 * calling orchestration. The durable-functions entity runner records a failed operation as
 * `JSON.stringify(error)`, which for an `Error` is `{}` (its message and stack are not enumerable);
 * the extension hands that text unchanged to the orchestration, where the library parses it and
 * raises `Error(parsed)`. Serialized as its message (a JSON string), the orchestration's error
 * reads that message instead of "[object Object]".
 */
export class EntityOperationError extends Error {
  override readonly name = 'EntityOperationError';

  /** What `JSON.stringify` writes: the message alone. */
  toJSON(): string {
    return this.message;
  }
}

/** `err` as an {@link EntityOperationError} with the same message (and `err` as its cause). */
export function entityOperationError(err: unknown): EntityOperationError {
  return err instanceof EntityOperationError ? err : new EntityOperationError(errorMessage(err), { cause: err });
}
