import { HttpRequest } from '@azure/functions';
import { toHttpInput, toHttpResponse } from '../../../functions/support/http-adapter';

describe('Functions HTTP ↔ host-independent handlers', () => {
  it('carries method, route params, query, body and lower-cased headers', async () => {
    const request = new HttpRequest({
      method: 'POST',
      url: 'http://localhost:7071/api/jobs/crm-accounts/execute?dryRun=true',
      params: { name: 'crm-accounts' },
      headers: { 'X-Request-Id': 'r-1', 'Content-Type': 'application/json' },
      body: { string: '{"limit":5}' },
    });
    const input = await toHttpInput(request);
    expect(input).toMatchObject({ method: 'POST', params: { name: 'crm-accounts' }, body: '{"limit":5}', headers: { 'x-request-id': 'r-1', 'content-type': 'application/json' } });
    expect(input.query.get('dryRun')).toBe('true');
  });

  it('reads a missing body as empty text', async () => {
    expect((await toHttpInput(new HttpRequest({ method: 'POST', url: 'http://localhost/api/x' }))).body).toBe('');
  });

  it('sends objects as JSON and strings as they are', () => {
    expect(toHttpResponse({ status: 404, body: { error: { code: 'JobNotFound', message: 'unknown job "x"' } } })).toEqual({
      status: 404,
      jsonBody: { error: { code: 'JobNotFound', message: 'unknown job "x"' } },
    });
    expect(toHttpResponse({ status: 200, body: '<html/>', headers: { 'content-type': 'text/html' } })).toEqual({ status: 200, body: '<html/>', headers: { 'content-type': 'text/html' } });
    expect(toHttpResponse({ status: 204 })).toEqual({ status: 204 });
  });
});
