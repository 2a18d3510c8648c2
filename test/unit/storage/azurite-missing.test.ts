import { errorKind } from '../../../src/platform/errors';
import { AZURITE_MISSING_MESSAGE, azuriteEntryPoint } from '../../../src/storage/azurite';

/** Azurite is a development dependency: a production install lacks it, and says how to get it. */
describe('azuriteEntryPoint', () => {
  it('finds the table service script of the installed package', () => {
    expect(azuriteEntryPoint()).toMatch(/node_modules[\\/]azurite[\\/]dist[\\/]src[\\/]table[\\/]main\.js$/);
  });

  it('says how to get Azurite when the package is missing (as after npm ci --omit=dev)', () => {
    const missing = (id: string): string => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
    };
    let thrown: unknown;
    try {
      azuriteEntryPoint(missing);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toBe(
      'Azurite (the local Table Storage emulator) is not installed: it is a development dependency, which "npm ci --omit=dev" and "npm install --omit=dev" leave out. Run "npm install" in the Highwater folder, or set AzureWebJobsStorage or HIGHWATER_TABLES_ENDPOINT to a storage account (then no local Azurite is needed)',
    );
    expect((thrown as Error).message).toBe(AZURITE_MISSING_MESSAGE);
    expect(errorKind(thrown)).toBe('config');
  });

  it('passes other resolution failures on unchanged', () => {
    const broken = (): string => {
      throw new Error('EACCES: permission denied');
    };
    expect(() => azuriteEntryPoint(broken)).toThrow('EACCES: permission denied');
  });
});
