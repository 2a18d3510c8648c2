import { ConfigError } from '../../src/platform/errors';
import type { OdataHttpClient } from '../odata/odata-http';
import { isGuid, queryString } from '../odata/odata-literals';
import { rowsOf } from '../odata/source-rows';

/**
 * The service root of a company: `<apiRoot>companies(<id>)/`. A company given by id is used as
 * is; one given by name is looked up once (by `name`, then `displayName`).
 * @param api a client on the API root (without company).
 * @throws ConfigError naming the companies there are when none matches.
 */
export async function companyServiceRoot(api: OdataHttpClient, company: string, label: string): Promise<string> {
  const root = (await api.serviceRoot()).href;
  if (isGuid(company)) return `${root}companies(${company})/`;
  const response = await api.request({
    method: 'GET',
    url: `companies${queryString([['$select', 'id,name,displayName']])}`,
    operation: `find company ${JSON.stringify(company)}`,
    retryThrottled: true,
  });
  const companies = rowsOf(response, 'companies');
  const found = companies.find((c) => c.name === company) ?? companies.find((c) => c.displayName === company);
  if (!found || typeof found.id !== 'string') {
    const known = companies.map((c) => JSON.stringify(c.name)).join(', ') || 'none';
    throw new ConfigError(`${label}: settings.company: no company named ${JSON.stringify(company)} (companies: ${known})`);
  }
  return `${root}companies(${found.id})/`;
}
