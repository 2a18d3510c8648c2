import { holdsBatchAnswers, matchJsonResponses } from '../../../../connectors/odata/batch-answers';

describe('matchJsonResponses', () => {
  const r = (id: unknown, status: number) => ({ id, status });

  it('matches by id, in any order', () => {
    expect(matchJsonResponses(3, [r('3', 204), r('1', 201), r('2', 400)])).toEqual([r('1', 201), r('2', 400), r('3', 204)]);
    expect(matchJsonResponses(2, [r(2, 204), r(1, 201)])).toEqual([r(1, 201), r(2, 204)]);
  });

  it('matches answers whose id is null or missing by position, around those matched by id', () => {
    expect(matchJsonResponses(3, [r(null, 200), r(null, 204), r(null, 400)])).toEqual([r(null, 200), r(null, 204), r(null, 400)]);
    expect(matchJsonResponses(3, [r('2', 201), { status: 204 }, r(null, 400)])).toEqual([{ status: 204 }, r('2', 201), r(null, 400)]);
  });

  it('leaves the requests after the last answer without one (a service that stopped at a failure)', () => {
    expect(matchJsonResponses(3, [r(null, 201), r(null, 400)])).toEqual([r(null, 201), r(null, 400), undefined]);
  });

  it('places an answer whose id names no request, or one answered already, by position rather than dropping it', () => {
    expect(matchJsonResponses(2, [r('r1', 201), r('1', 400)])).toEqual([r('1', 400), r('r1', 201)]);
    expect(matchJsonResponses(2, [r('1', 201), r('1', 400)])).toEqual([r('1', 201), r('1', 400)]);
    expect(matchJsonResponses(1, [r('1', 201), r('0', 400)])).toEqual([r('1', 201)]);
  });
});

describe('holdsBatchAnswers', () => {
  it('tells answers per request from one error of the whole request', () => {
    expect(holdsBatchAnswers('--batchresponse_1\r\nContent-Type: application/http\r\n')).toBe(true);
    expect(holdsBatchAnswers('{"responses":[{"id":"1","status":400}]}')).toBe(true);
    expect(holdsBatchAnswers('{"error":{"code":"0x80044331","message":"A validation error occurred."}}')).toBe(false);
    expect(holdsBatchAnswers('<html><body>Bad Gateway</body></html>')).toBe(false);
    expect(holdsBatchAnswers('{"responses": nope')).toBe(false);
  });
});
