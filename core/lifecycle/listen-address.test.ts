import { strict as assert } from 'node:assert';
import { ListenError, formatListenAddress, parseListenAddress } from './listen-address.js';

describe('parseListenAddress', () => {
  const good: { text: string; host: string; port: number }[] = [
    { text: ':15014', host: '', port: 15014 },
    { text: 'localhost:9876', host: 'localhost', port: 9876 },
    { text: '0.0.0.0:8383', host: '0.0.0.0', port: 8383 },
    { text: '[::1]:80', host: '::1', port: 80 },
    { text: '127.0.0.1:0', host: '127.0.0.1', port: 0 },
  ];
  for (const c of good) {
    it(`given ${c.text} should give host "${c.host}" and port ${c.port}`, () => {
      assert.deepEqual(parseListenAddress(c.text), { host: c.host, port: c.port });
      assert.equal(formatListenAddress({ host: c.host, port: c.port }), c.text);
    });
  }

  const bad: { text: string; why: RegExp }[] = [
    { text: ':abc', why: /invalid port "abc"/ },
    { text: ':70000', why: /invalid port "70000"/ },
    { text: 'localhost', why: /not a host:port address/ },
    { text: '::1:80', why: /not a host:port address/ },
    { text: ':', why: /invalid port ""/ },
  ];
  for (const c of bad) {
    it(`given ${c.text} should throw ListenError naming the flag`, () => {
      assert.throws(
        () => parseListenAddress(c.text, 'monitoringAddr'),
        (err: unknown) => err instanceof ListenError && err.message.startsWith(`--monitoringAddr "${c.text}": `) && c.why.test(err.message),
      );
    });
  }
});
