import { APP_SETTING_LIST } from '../../../src/platform/app-settings';
import { parseSetting, type AppSetting } from '../../../src/platform/setting-spec';
import { bicepAppSettings, localSettings } from '../infra/infra-files';

/** The text of a cell that is one code span without a placeholder (`` `x` `` → `x`), else undefined. */
const literal = (cell: string | undefined) => (cell === undefined ? undefined : /^`([^`<]*)`$/.exec(cell)?.[1]);

/**
 * Documented defaults that are not the schema's value for "unset": the code resolves them
 * elsewhere (another setting, or the opener's own default).
 */
const DEFAULT_ELSEWHERE: Record<string, string> = {
  SERVICEBUS_CONNECTION_STRING: 'falls back to ServiceBusConnection in readSettings',
  HIGHWATER_AZURITE_PORT: 'the table storage factory takes AZURITE_DEFAULT_TABLE_PORT (10002) when unset',
  HIGHWATER_LOCAL_BUS_SYNCHRONOUS: "unset leaves the local bus's own NORMAL",
};

/** The default as the docs show it, from the schema (seconds settings give ms). */
function schemaDefault(setting: AppSetting): string {
  const value = parseSetting(setting, undefined);
  return setting.type.startsWith('seconds') && typeof value === 'number' ? String(value / 1000) : String(value);
}

describe('the registry says what the code, the local example and the Bicep do', () => {
  const code = APP_SETTING_LIST.filter((s) => s.readBy === 'code');

  it('a documented default is the value the setting takes when unset', () => {
    const documented = code.filter((s) => literal(s.default) !== undefined && !(s.name in DEFAULT_ELSEWHERE));
    expect(documented.length).toBeGreaterThan(15);
    expect(documented.map((s) => [s.name, schemaDefault(s)])).toEqual(documented.map((s) => [s.name, literal(s.default)]));
  });

  it('the local column is what local.settings.example.json sets', () => {
    const local = localSettings();
    const shown = (s: AppSetting) => (s.local === 'the default' ? literal(s.default) : s.local === 'empty' ? '' : literal(s.local));
    const checked = code.filter((s) => shown(s) !== undefined);
    expect(checked.length).toBeGreaterThan(15);
    expect(checked.map((s) => [s.name, local[s.name]])).toEqual(checked.map((s) => [s.name, shown(s)]));
    const unset = APP_SETTING_LIST.filter((s) => s.local.startsWith('not set') || s.local === '—');
    expect(unset.map((s) => s.name).filter((name) => name in local)).toEqual([]);
  });

  it('the Azure column is what the Bicep sets', () => {
    const bicep = bicepAppSettings();
    const shown = (s: AppSetting) => (s.azure === 'the default' ? literal(s.default) : s.azure.startsWith('empty') ? '' : literal(s.azure.replace(/ \(.*\)$/, '')));
    const checked = code.filter((s) => shown(s) !== undefined);
    expect(checked.length).toBeGreaterThan(12);
    expect(checked.map((s) => [s.name, bicep.get(s.name)?.literal])).toEqual(checked.map((s) => [s.name, shown(s)]));
    const unset = APP_SETTING_LIST.filter((s) => s.azure.startsWith('not set'));
    expect(unset.map((s) => s.name).filter((name) => bicep.has(name))).toEqual([]);
  });
});
