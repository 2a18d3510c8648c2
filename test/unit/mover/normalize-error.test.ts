import { normalizeErrorMessage } from '../../../src/mover/normalize-error';

describe('normalizeErrorMessage', () => {
  it('replaces particulars so that the same problem groups together', () => {
    expect(normalizeErrorMessage('timeout after 30000 ms (request 7f3c2a10-1b2c-4d5e-8f90-0123456789ab)')).toBe('timeout after <n> ms (request <guid>)');
    expect(normalizeErrorMessage('row changed at 2026-03-01T10:00:00.1234567Z, expected 2026-02-01')).toBe('row changed at <time>, expected <time>');
    expect(normalizeErrorMessage('etag 0x8DC1A2B3C4D5E6F mismatch, trace 4bf92f3577b34da6a3ce929d0e0e4736')).toBe('etag <hex> mismatch, trace <hex>');
    expect(normalizeErrorMessage('order   12345\n not found')).toBe('order <n> not found');
  });

  it('keeps short numbers and words: HTTP 404 and HTTP 500 are different problems', () => {
    expect(normalizeErrorMessage('HTTP 404 Not Found')).toBe('HTTP 404 Not Found');
    expect(normalizeErrorMessage('HTTP 500 deadbeef')).toBe('HTTP 500 deadbeef');
  });

  it('names a missing message and cuts long ones', () => {
    expect(normalizeErrorMessage(undefined)).toBe('(no error message)');
    expect(normalizeErrorMessage('  ')).toBe('(no error message)');
    const long = normalizeErrorMessage('x'.repeat(500));
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });
});
