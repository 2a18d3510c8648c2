import { parseJsonBody } from '../../../src/http/json-body';
import { executeJobBody, orchestrationStartBody } from '../../../src/http/request-bodies';

const message = (result: { ok: boolean; message?: string }) => (result.ok ? 'ok' : result.message);

describe('request bodies', () => {
  it.each([
    ['{"dryRun":"yes"}', 'body.dryRun: expected a boolean'],
    ['{"dryRun":null}', 'body.dryRun: expected a boolean'],
    ['{"limit":0}', 'body.limit: expected an integer from 1 to 10000'],
    ['{"limit":10001}', 'body.limit: expected an integer from 1 to 10000'],
    ['{"limit":2.5}', 'body.limit: expected an integer from 1 to 10000'],
    ['{"limit":"5"}', 'body.limit: expected an integer from 1 to 10000'],
    // an unknown key is named before any bad value
    ['{"limit":"x","force":true}', 'body.force: unknown property (allowed: dryRun, limit)'],
    // the first property in the schema's order wins
    ['{"limit":0,"dryRun":1}', 'body.dryRun: expected a boolean'],
    ['[]', 'body: expected a JSON object'],
    ['null', 'body: expected a JSON object'],
  ])('execute %s → %s', (body, expected) => {
    expect(message(parseJsonBody(body, executeJobBody))).toBe(expected);
  });

  it('reads a valid execute body', () => {
    expect(parseJsonBody('{"dryRun":true,"limit":20}', executeJobBody)).toEqual({ ok: true, value: { dryRun: true, limit: 20 } });
    expect(parseJsonBody('{}', executeJobBody)).toEqual({ ok: true, value: {} });
  });

  it('says why a body is not JSON', () => {
    expect(message(parseJsonBody('{', executeJobBody))).toMatch(/^body: not JSON \(.+\)$/);
  });

  it.each([
    ['{"jobs":["a","a",""]}', 'body.jobs[1]: "a" is listed twice'],
    ['{"jobs":["a","", "a"]}', 'body.jobs[1]: expected a job name'],
    ['{"jobs":[" "]}', 'body.jobs[0]: expected a job name'],
    [JSON.stringify({ jobs: [...Array.from({ length: 500 }, (_, i) => `j${i}`), 7] }), 'body.jobs: expected at most 500 job names'],
  ])('orchestration start %s → %s', (body, expected) => {
    expect(message(parseJsonBody(body, orchestrationStartBody))).toBe(expected);
  });

  it('reads the named jobs in order', () => {
    expect(parseJsonBody('{"jobs":["b","a"]}', orchestrationStartBody)).toEqual({ ok: true, value: { jobs: ['b', 'a'] } });
  });
});
