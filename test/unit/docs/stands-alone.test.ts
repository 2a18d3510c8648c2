import path from 'node:path';
import { findOutsideReferences, formatOutsideReference, repositoryTextFiles, scanRepository } from '../../support/outside-references';

/**
 * The project stands alone: no page, comment or test name cites a document or tracker outside
 * the repository. Planted words are joined from pieces so that this file does not cite them.
 */
const root = path.join(__dirname, '../../..');
const join = (...pieces: string[]): string => pieces.join('');

describe('the repository stands alone', () => {
  it('finds each kind of outside reference in planted text, with its line', () => {
    const planted = [
      'A harmless first line.',
      join('The design is in the shared ', 'ARCHI', 'TECTURE', '.md.'),
      join('Timer (see ', 'ARCHI', 'TECTURE', ' ', '§', '3).'),
      join('/** ', 'Issue', ' 21 item 2: a damaged page. */'),
      join("it('suggests the property (", 'issue', " 20, item 10)')"),
      join('fixed in ', 'issue', ' #4'),
      join('as ', 'Seeds', ' 002 and 003 ask'),
      join('see ../', 'shared', '/seeds/', 'datenfl', 'uesse', '.md'),
      join('the tools are in ', 'TOOLING', '.md'),
      join('as the spec says (', '§', '5.6)'),
      join('the outage mode (', 'issue', ': long runs, ', 'item', ' 4)'),
    ].join('\n');

    expect(findOutsideReferences(planted, 'planted.ts').map(formatOutsideReference)).toEqual([
      join('planted.ts:2: The design is in the shared ', 'ARCHI', 'TECTURE', '.md.'),
      join('planted.ts:3: Timer (see ', 'ARCHI', 'TECTURE', ' ', '§', '3).'),
      join('planted.ts:4: /** ', 'Issue', ' 21 item 2: a damaged page. */'),
      join("planted.ts:5: it('suggests the property (", 'issue', " 20, item 10)')"),
      join('planted.ts:6: fixed in ', 'issue', ' #4'),
      join('planted.ts:7: as ', 'Seeds', ' 002 and 003 ask'),
      join('planted.ts:8: see ../', 'shared', '/seeds/', 'datenfl', 'uesse', '.md'),
      join('planted.ts:9: the tools are in ', 'TOOLING', '.md'),
      join('planted.ts:10: as the spec says (', '§', '5.6)'),
      join('planted.ts:11: the outage mode (', 'issue', ': long runs, ', 'item', ' 4)'),
    ]);
  });

  it('leaves ordinary words alone: issues, a random seed, the architecture page', () => {
    const harmless = [
      'Known issues: none. It issues a command; the validator lists 3 issues.',
      'The soak test takes a random seed (seed 42, seeds 7 and 9) per run.',
      'The design: docs/architecture.md, Detection. The architecture of the shared bus.',
      'Item 5 of the list; tissue 19; reissue 3 messages.',
      'if (issue.code === 1) return items[0]; // an issue of the schema: items 2 and 3 are kept',
    ].join('\n');

    expect(findOutsideReferences(harmless, 'harmless.md')).toEqual([]);
  });

  it('reads the repository\u2019s own text files, not installed or generated ones', () => {
    const files = repositoryTextFiles(root);

    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'test/unit/docs/stands-alone.test.ts', 'src/detect/read-changes.ts']));
    expect(files.filter((file) => /^(node_modules|dist|\.deploy|\.git|coverage)\//.test(file))).toEqual([]);
  });

  it('no file cites a document or tracker outside the repository', () => {
    expect(scanRepository(root).map(formatOutsideReference)).toEqual([]);
  });
});
