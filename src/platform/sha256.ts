import { createHash, hash } from 'node:crypto';

/**
 * The sha256 of a UTF-8 text as hex. One-shot `crypto.hash` (Node 20.12+) where present: a third
 * of `createHash`'s cost, which matters where it runs once per detected or applied change. Same
 * digest either way.
 */
export const sha256Hex: (text: string) => string =
  typeof hash === 'function' ? (text) => hash('sha256', text, 'hex') : (text) => createHash('sha256').update(text, 'utf8').digest('hex');
