import { APP_SETTING_LIST } from './app-settings';
import { SETTING_SECTIONS, type AppSetting, type SettingSection } from './setting-spec';

/**
 * The settings tables of `docs/settings.md`, rendered from the registry (`app-settings.ts`):
 * `npm run docs:settings` writes them between the two markers, and a unit test fails when the page
 * differs from what the registry renders. Text outside the markers is written by hand.
 */

export const SETTINGS_DOC_BEGIN = '<!-- settings:begin (generated from src/platform/app-settings*.ts by `npm run docs:settings`; edit those, not this part) -->';
export const SETTINGS_DOC_END = '<!-- settings:end -->';

const SECTION_TITLES: Record<SettingSection, { title: string; intro?: string }> = {
  storage: { title: 'Storage (tables and the Functions host)' },
  serviceBus: { title: 'Service Bus' },
  identity: { title: 'Identity' },
  queues: {
    title: 'Queues',
    intro: 'Unset, each takes its default; the Bicep, the emulator\u2019s `infra/local/Config.json` and the local example all use the defaults.',
  },
  runs: {
    title: 'Schedules and runs',
    intro: 'Optional ones are left out of the Bicep and `local.settings.example.json`: unset, the default applies.',
  },
  localState: { title: 'Local state', intro: 'The local host and the CLI only; the Functions app in Azure runs on Table Storage and Service Bus.' },
  http: { title: 'HTTP' },
  push: { title: 'Push' },
  telemetry: { title: 'Telemetry and the Functions runtime' },
};

/** A table cell: one line, its pipes escaped (those written `\|` already stay as they are). */
const cell = (text: string | undefined) => (text ?? '—').replace(/\s*\n\s*/g, ' ').replace(/(?<!\\)\|/g, '\\|');

function row(setting: AppSetting): string {
  const name = `\`${setting.name}\`${setting.optional ? ' (optional)' : ''}`;
  return `| ${[name, setting.type, setting.default, setting.description, setting.local, setting.azure].map(cell).join(' | ')} |`;
}

function section(id: SettingSection, settings: readonly AppSetting[]): string[] {
  const { title, intro } = SECTION_TITLES[id];
  const rows = settings.filter((s) => s.section === id).map(row);
  if (rows.length === 0) return [];
  return [`## ${title}`, '', ...(intro ? [intro, ''] : []), '| setting | type | default | what it does | local | Azure |', '|---|---|---|---|---|---|', ...rows, ''];
}

/** The generated part, markers included. */
export function renderSettingsTables(settings: readonly AppSetting[] = APP_SETTING_LIST): string {
  return [SETTINGS_DOC_BEGIN, '', ...SETTING_SECTIONS.flatMap((id) => section(id, settings)), SETTINGS_DOC_END].join('\n');
}

/**
 * The page with its generated part rendered anew.
 * @throws Error when the page lacks the markers (the message says where they go).
 */
export function withSettingsTables(page: string, settings: readonly AppSetting[] = APP_SETTING_LIST): string {
  const begin = page.indexOf(SETTINGS_DOC_BEGIN);
  const end = page.indexOf(SETTINGS_DOC_END);
  if (begin < 0 || end < begin) throw new Error(`docs/settings.md needs the lines ${SETTINGS_DOC_BEGIN} and ${SETTINGS_DOC_END} around its settings tables`);
  return page.slice(0, begin) + renderSettingsTables(settings) + page.slice(end + SETTINGS_DOC_END.length);
}
