import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRules } from '../../../../tools/dead-letter-mover/rules-file';
import { firstMatch, type RuleSubject } from '../../../../src/mover/rules';

const subject = (over: Partial<RuleSubject> = {}): RuleSubject => ({ errorMessage: '', errorType: '', deadLetterReason: '', jobName: 'job-a', ageMs: 0, ...over });

function errorOf(text: string): string {
  try {
    parseRules(text, 'rules.yaml');
  } catch (err) {
    expect((err as Error).name).toBe('UsageError');
    return (err as Error).message;
  }
  throw new Error('expected the rules to be rejected');
}

describe('rules file', () => {
  it('parses YAML with every condition and keeps the order', () => {
    const rules = parseRules(
      `rules:
  - name: timeouts
    match: { errorMessage: /time(d)? ?out/, deadLetterReason: MaxDelivery, job: [a, b], olderThan: 1h, newerThan: 2d }
    action: Resubmit
  - match: {}
    action: Skip
`,
      'rules.yaml',
    );
    expect(rules.map((r) => [r.index, r.name, r.action])).toEqual([
      [0, 'timeouts', 'Resubmit'],
      [1, 'rules[1]', 'Skip'],
    ]);
    expect(rules[0].match).toMatchObject({ jobs: ['a', 'b'], olderThanMs: 3_600_000, newerThanMs: 172_800_000 });
    expect(rules[0].match.errorMessage?.source).toBe('/time(d)? ?out/');
  });

  it('parses JSON too', () => {
    const rules = parseRules('{"rules": [{"match": {"errorType": "TransientError"}, "action": "None"}]}', 'rules.json');
    expect(rules).toHaveLength(1);
    expect(rules[0].match.errorType?.test('transienterror')).toBe(true);
  });

  it('matches case-insensitively, substrings and regular expressions; first match wins', () => {
    const rules = parseRules(
      `rules:
  - { name: regex, match: { errorMessage: '/^http 50[23]/' }, action: Resubmit }
  - { name: text, match: { errorMessage: Timeout }, action: Skip }
  - { name: all-of, match: { errorMessage: x, job: job-b, olderThan: 10m }, action: Skip }
  - { name: rest, match: {}, action: None }
`,
      'rules.yaml',
    );
    const pick = (over: Partial<RuleSubject>) => firstMatch(rules, subject(over))?.name;
    expect(pick({ errorMessage: 'HTTP 503 Service Unavailable' })).toBe('regex');
    expect(pick({ errorMessage: 'got HTTP 503' })).toBe('rest'); // anchored
    expect(pick({ errorMessage: 'request TIMEOUT after 5 s' })).toBe('text');
    expect(pick({ errorMessage: 'x', jobName: 'job-b', ageMs: 600_000 })).toBe('all-of');
    expect(pick({ errorMessage: 'x', jobName: 'job-b', ageMs: 599_999 })).toBe('rest');
    expect(pick({ errorMessage: 'x', jobName: 'job-a', ageMs: 600_000 })).toBe('rest');
  });

  it('names the rule and field of an invalid regular expression', () => {
    expect(errorOf('rules:\n  - { match: { errorMessage: timeout }, action: None }\n  - { match: {}, action: None }\n  - name: broken\n    match: { errorMessage: "/(unclosed/" }\n    action: Resubmit\n')).toBe(
      'rules.yaml: rules[2].match.errorMessage: invalid regular expression /(unclosed/: Unterminated group (rule "broken")',
    );
  });

  it('lists every problem, each with its path', () => {
    const message = errorOf(`rules:
  - match: { errorMesage: x }
    action: resubmit
  - name: ""
    match: { job: [], olderThan: soon, deadLetterReason: 42 }
  - match: { errorType: '/x/g' }
    action: Skip
  - just text
`);
    expect(message.split('\n')).toEqual([
      'rules.yaml: rules[0].match.errorMesage: unknown property (expected one of errorMessage, errorType, deadLetterReason, job, olderThan, newerThan)',
      'rules.yaml: rules[0].action: expected one of Resubmit, None, Skip, got string "resubmit"',
      'rules.yaml: rules[1].name: expected a non-empty string, got string ""',
      'rules.yaml: rules[1].match.deadLetterReason: expected a non-empty string (text to find, or /regular expression/), got number 42',
      'rules.yaml: rules[1].match.job: expected a job name or a non-empty list of job names, got a list',
      'rules.yaml: rules[1].match.olderThan: expected a duration like 30m, 2h, 1h30m, 7d or PT1H, got string "soon"',
      'rules.yaml: rules[1].action: required',
      'rules.yaml: rules[2].match.errorType: unsupported regular expression flag "g" (allowed: i, m, s, u)',
      'rules.yaml: rules[3]: expected an object with match and action, got string "just text"',
    ]);
  });

  it('requires match (an empty match must be written as {})', () => {
    expect(errorOf('rules:\n  - name: all\n    action: Skip\n')).toBe('rules.yaml: rules[0].match: required (use {} to match every message) (rule "all")');
  });

  it('rejects a file without a rules list, unknown top-level keys, and broken YAML', () => {
    expect(errorOf('- a\n- b\n')).toBe('rules.yaml: expected an object with a top-level "rules" list, got a list');
    expect(errorOf('rule: []\n')).toBe('rules.yaml: rule: unknown property (expected one of rules, $schema)\nrules.yaml: rules: required');
    expect(errorOf('rules: {}\n')).toBe('rules.yaml: rules: expected a list, got an object');
    expect(errorOf('rules:\n  - name: a\n   match: {}\n')).toBe('rules.yaml: not valid YAML or JSON: Sequence item without - indicator at line 3, column 1');
  });

  it('the default rules file is valid: permanent errors stay, transitive and transient ones are resubmitted', () => {
    const file = path.resolve(__dirname, '../../../../src/mover/default-rules.yaml');
    const rules = parseRules(readFileSync(file, 'utf8'), 'default-rules.yaml');
    const pick = (over: Partial<RuleSubject>) => firstMatch(rules, subject(over))?.action ?? 'None';
    expect(pick({ errorType: 'PermanentError', errorMessage: 'HTTP 400: request timeout field invalid' })).toBe('None');
    expect(pick({ errorType: 'TransitiveError', errorMessage: 'referenced account 42 not found' })).toBe('Resubmit');
    expect(pick({ errorType: 'TransientError', errorMessage: 'connect ECONNREFUSED 127.0.0.1:5432' })).toBe('Resubmit');
    expect(pick({ errorType: 'TransientError', errorMessage: 'HTTP 503 Service Unavailable' })).toBe('Resubmit');
    expect(pick({ errorType: 'TransientError', errorMessage: 'HTTP 409 conflict' })).toBe('None');
    expect(pick({})).toBe('None');
  });
});
