import { APP_SETTINGS } from '../../../src/platform/app-settings';
import { parseSetting, rawSetting, readSetting } from '../../../src/platform/setting-spec';

describe('reading one app setting through the registry', () => {
  it('trims the value and takes blank as unset, so the default applies', () => {
    expect(rawSetting({ X: '  a b  ' }, 'X')).toBe('a b');
    expect(rawSetting({ X: ' \t' }, 'X')).toBeUndefined();
    expect(readSetting({ HIGHWATER_RETRY_MAX_SECONDS: ' ' }, APP_SETTINGS.retryMaxSeconds)).toBe(1_800_000);
    expect(readSetting({ HIGHWATER_RETRY_MAX_SECONDS: ' 1.5 ' }, APP_SETTINGS.retryMaxSeconds)).toBe(1_500);
  });

  it('refuses an invalid value with a ConfigError naming the setting, then the problem', () => {
    expect(() => parseSetting(APP_SETTINGS.localTables, 'lokijs')).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: 'HIGHWATER_LOCAL_TABLES: expected azurite or sqlite, got "lokijs"' }),
    );
  });

  it('gives the value as the code uses it: in the case declared, seconds in ms, 0 as off where 0 means off', () => {
    expect(parseSetting(APP_SETTINGS.localBusSynchronous, 'full')).toBe('FULL');
    expect(parseSetting(APP_SETTINGS.localBusSynchronous, undefined)).toBeUndefined();
    expect(parseSetting(APP_SETTINGS.budgetSeconds, '0')).toBeUndefined();
    expect(parseSetting(APP_SETTINGS.budgetSeconds, '90')).toBe(90_000);
    expect(parseSetting(APP_SETTINGS.azuritePort, '10010')).toBe(10010);
  });

  it('builds a schema once, on first use', () => {
    expect(APP_SETTINGS.queueHigh.schema()).toBe(APP_SETTINGS.queueHigh.schema());
  });
});
