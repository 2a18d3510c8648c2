import { DEFAULT_EXECUTE_WAIT_SECONDS, readExecuteWaitMs } from '../../../src/http/execute-wait';
import { APP_SETTINGS } from '../../../src/platform/app-settings';

const EXECUTE_WAIT_SETTING = APP_SETTINGS.executeWaitSeconds.name;

describe('HIGHWATER_EXECUTE_WAIT_SECONDS', () => {
  it('defaults to 100 s, well under the 230 s Azure’s front end allows an HTTP request', () => {
    expect(DEFAULT_EXECUTE_WAIT_SECONDS).toBe(100);
    expect(readExecuteWaitMs({})).toBe(100_000);
    expect(readExecuteWaitMs({ [EXECUTE_WAIT_SETTING]: ' ' })).toBe(100_000);
  });

  it('takes whole seconds from 0 to 200', () => {
    expect(readExecuteWaitMs({ [EXECUTE_WAIT_SETTING]: '0' })).toBe(0);
    expect(readExecuteWaitMs({ [EXECUTE_WAIT_SETTING]: ' 200 ' })).toBe(200_000);
  });

  it.each(['201', '-1', '1.5', '30s', 'abc'])('rejects %j, naming the setting and the range', (value) => {
    expect(() => readExecuteWaitMs({ [EXECUTE_WAIT_SETTING]: value })).toThrow(
      `HIGHWATER_EXECUTE_WAIT_SECONDS: expected whole seconds from 0 to 200, got ${JSON.stringify(value)}`,
    );
  });
});
