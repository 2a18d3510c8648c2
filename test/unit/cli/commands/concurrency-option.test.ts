import { parseConcurrency } from '../../../../src/cli/commands/concurrency-option';

describe('--concurrency', () => {
  it('takes one number for every work queue, or some queues by priority', () => {
    expect(parseConcurrency('32')).toEqual({ high: 32, normal: 32, low: 32 });
    expect(parseConcurrency('normal=32,low=4')).toEqual({ normal: 32, low: 4 });
    expect(parseConcurrency(' HIGH = 2 ')).toEqual({ high: 2 });
  });

  it.each([
    ['0', 'expected a positive integer or priority=n pairs (e.g. normal=32,low=4), got "0"'],
    ['many', 'expected a positive integer or priority=n pairs (e.g. normal=32,low=4), got "many"'],
    ['normal=32,', 'expected a positive integer or priority=n pairs (e.g. normal=32,low=4), got "normal=32,"'],
    ['urgent=4', 'unknown priority "urgent" (known: high, normal, low)'],
    ['normal=0', 'normal: expected a positive integer, got "0"'],
    ['low=2.5', 'low: expected a positive integer, got "2.5"'],
    ['low=2,low=3', 'low is given twice'],
  ])('rejects %j: %s', (value, message) => {
    expect(() => parseConcurrency(value)).toThrow(message);
    expect(() => parseConcurrency(value)).toThrow(expect.objectContaining({ code: 'commander.invalidArgument' }));
  });
});
