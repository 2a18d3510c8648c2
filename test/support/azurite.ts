import { startAzurite } from '../../src/storage/azurite';

export interface TestAzurite {
  /** Dev-account connection string (plain HTTP); pass it as `AzureWebJobsStorage`. */
  connectionString: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts an in-memory Azurite table service on a free port. Start it once per suite
 * (`beforeAll`) and stop it in `afterAll`; use unique table rows or names per test.
 */
export async function startTestAzurite(): Promise<TestAzurite> {
  const azurite = await startAzurite({ port: 0 });
  return { connectionString: azurite.connectionString, port: azurite.port, stop: () => azurite.stop() };
}
