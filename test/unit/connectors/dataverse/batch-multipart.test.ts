import { buildBatch, parseBatch } from '../../../../connectors/dataverse';

describe('$batch multipart', () => {
  it('builds independent requests and reads answers, change sets flattened', () => {
    const text = buildBatch('batch_1', [{ method: 'PATCH', url: 'https://o/api/data/v9.2/accounts(1)', body: { name: 'a' } }, { method: 'DELETE', url: 'https://o/api/data/v9.2/accounts(2)' }]);
    expect(text.split('\r\n')).toEqual([
      '--batch_1', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', 'Content-ID: 1', '',
      'PATCH https://o/api/data/v9.2/accounts(1) HTTP/1.1', 'Content-Type: application/json; type=entry', '', '{"name":"a"}',
      '--batch_1', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', 'Content-ID: 2', '',
      'DELETE https://o/api/data/v9.2/accounts(2) HTTP/1.1', '',
      '--batch_1--', '',
    ]);
    const answer = [
      '--batchresponse_a', 'Content-Type: multipart/mixed; boundary=changesetresponse_b', '',
      '--changesetresponse_b', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', 'Content-ID: 1', '',
      'HTTP/1.1 204 No Content', 'OData-Version: 4.0', '', '',
      '--changesetresponse_b--',
      '--batchresponse_a', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '',
      'HTTP/1.1 200 OK', 'Content-Type: application/json', '', '{"accountid":"x"}',
      '--batchresponse_a--', '',
    ].join('\n');
    expect(parseBatch(answer, 'batchresponse_a')).toEqual([
      { status: 204, statusText: 'No Content', headers: { 'odata-version': '4.0' }, body: '' },
      { status: 200, statusText: 'OK', headers: { 'content-type': 'application/json' }, body: '{"accountid":"x"}' },
    ]);
    expect(() => parseBatch('--b\r\nContent-Type: application/http\r\n\r\nnonsense\r\n--b--', 'b')).toThrow('$batch: an answer part has no HTTP status line');
  });
});
