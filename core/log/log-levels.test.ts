import { strict as assert } from 'node:assert';
import { LogConfigError, parseScopeLevels, parseScopeList } from './log-levels.js';
import { SCOPES } from './scopes.js';

const scopes = SCOPES['pilot-discovery'];

describe('parseScopeLevels', () => {
  const good: { name: string; text: string; want: Record<string, string> }[] = [
    { name: 'the default flag value', text: 'default:info', want: { default: 'info' } },
    { name: 'two scopes', text: 'default:info,ads:debug', want: { default: 'info', ads: 'debug' } },
    { name: 'a bare level', text: 'debug', want: { default: 'debug' } },
    { name: 'spaces and empty items', text: ' ads:warn , ,model:none', want: { ads: 'warn', model: 'none' } },
    { name: 'a scope with a space', text: 'ingress status:error', want: { 'ingress status': 'error' } },
    { name: 'an empty text', text: '', want: {} },
  ];
  for (const c of good) {
    it(`given ${c.name} should give the levels`, () => assert.deepEqual(Object.fromEntries(parseScopeLevels(c.text, scopes)), c.want));
  }

  it('given all:debug with another item should set every scope to debug (all overrides, as in Istio)', () => {
    const levels = parseScopeLevels('ads:info,all:debug', scopes);
    assert.equal(levels.size, scopes.length - 1);
    assert.ok([...levels.values()].every((l) => l === 'debug'));
    assert.equal(levels.has('all'), false);
  });

  const bad: { name: string; text: string; message: RegExp }[] = [
    { name: 'an unknown scope', text: 'default:info,nosuch:debug', message: /unknown scope "nosuch" in "nosuch:debug" \(valid scopes: ads, adsc, all,/ },
    { name: 'an unknown level', text: 'ads:verbose', message: /invalid log level "verbose" in "ads:verbose" \(use debug, info, warn, error, fatal, none\)/ },
    { name: 'a bare unknown level', text: 'loud', message: /invalid log level "loud"/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should throw LogConfigError naming it`, () => {
      assert.throws(() => parseScopeLevels(c.text, scopes), (err: unknown) => err instanceof LogConfigError && c.message.test(err.message));
    });
  }
});

describe('parseScopeList', () => {
  it('given scopes should give them', () => assert.deepEqual([...parseScopeList('ads,model', scopes)], ['ads', 'model']));
  it('given all should give every scope', () => assert.equal(parseScopeList('all', scopes).size, scopes.length - 1));
  it('given an unknown scope should throw naming it', () => assert.throws(() => parseScopeList('ads,adz', scopes), /unknown scope "adz"/));
});
