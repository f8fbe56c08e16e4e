import assert from 'node:assert/strict';
import { GoFunction, GoStruct, newTemplateSet } from './index.js';

describe('struct methods (Helm .Files.Get)', () => {
  const files = new GoStruct('chart.Files', {}, { Get: new GoFunction(['string'], (n) => `content of ${n as string}`) });
  const table = [
    { name: 'a method with a literal argument', tmpl: '{{ .Files.Get "a.txt" }}', want: 'content of a.txt' },
    { name: 'a method whose argument is read from dot, not the receiver', tmpl: '{{ .Files.Get .Name }}', want: 'content of b.txt' },
    { name: 'a method in a pipeline', tmpl: '{{ "c.txt" | .Files.Get | upper }}', want: 'CONTENT OF C.TXT' },
  ];
  for (const t of table) {
    it(`given ${t.name}, should call the method`, () => {
      const set = newTemplateSet();
      set.parse('t', t.tmpl);
      assert.equal(set.execute('t', { Files: files, Name: 'b.txt' }), t.want);
    });
  }
  it('given a method with the wrong number of arguments, should fail naming it', () => {
    const set = newTemplateSet();
    set.parse('t', '{{ .Files.Get }}');
    assert.throws(() => set.execute('t', { Files: files }), /wrong number of args for Get: want 1 got 0/);
  });
});
