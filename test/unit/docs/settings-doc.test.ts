import { readFileSync } from 'node:fs';
import path from 'node:path';
import { APP_SETTING_LIST, APP_SETTINGS } from '../../../src/platform/app-settings';
import { defineSetting } from '../../../src/platform/setting-spec';
import { text } from '../../../src/platform/setting-schemas';
import { renderSettingsTables, SETTINGS_DOC_BEGIN, SETTINGS_DOC_END, withSettingsTables } from '../../../src/platform/settings-doc';

const PAGE = path.resolve(__dirname, '../../../docs/settings.md');

describe('docs/settings.md: its settings tables come from the registry', () => {
  const page = readFileSync(PAGE, 'utf8');

  it('equals what the registry renders', () => {
    const upToDate = withSettingsTables(page) === page;
    expect(upToDate ? 'up to date' : 'docs/settings.md differs from src/platform/app-settings*.ts: run npm run docs:settings').toBe('up to date');
  });

  it('shows every declared setting once, in a row of its own', () => {
    const generated = page.slice(page.indexOf(SETTINGS_DOC_BEGIN), page.indexOf(SETTINGS_DOC_END));
    const rows = generated.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows.map((line) => /^\| `([^`]+)`/.exec(line)?.[1])).toEqual(expect.arrayContaining(APP_SETTING_LIST.map((s) => s.name)));
    expect(rows).toHaveLength(APP_SETTING_LIST.length);
  });

  it('shows a setting with its type, default, description and values, pipes escaped', () => {
    const row = renderSettingsTables([APP_SETTINGS.localTables]).split('\n').find((line) => line.startsWith('| `HIGHWATER_LOCAL_TABLES`'));
    expect(row).toBe(
      '| `HIGHWATER_LOCAL_TABLES` | `azurite` \\| `sqlite` | `azurite` | ' +
        APP_SETTINGS.localTables.description +
        ' | `azurite` | `azurite` (unused: Azure has storage) |',
    );
    const piped = defineSetting({ name: 'X', readBy: 'code', type: 'a | b', description: 'one\ntwo', local: '', azure: '', section: 'http', optional: true, schema: text() });
    expect(renderSettingsTables([piped])).toContain('| `X` (optional) | a \\| b | — | one two |  |  |');
  });

  it('refuses a page without the markers, saying which lines it needs', () => {
    expect(() => withSettingsTables('# App settings\n')).toThrow(`docs/settings.md needs the lines ${SETTINGS_DOC_BEGIN} and ${SETTINGS_DOC_END} around its settings tables`);
  });
});
