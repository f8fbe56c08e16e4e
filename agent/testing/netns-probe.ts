/**
 * A tiny traffic tool for the mesh-iptables namespace tests, run inside a network namespace with
 * `ip netns exec`: `serve <port>:<label>[:udp] ...` answers every TCP connection (or UDP datagram) on
 * each port (all IPv4 addresses) with its label and prints `ready` once all listen; `dial <host> <port> [udp]` prints the answer it gets
 * (or `error: ...` / `timeout`) and exits.
 */
import { createSocket } from 'node:dgram';
import { connect, createServer } from 'node:net';

const [mode, host, portText, third] = process.argv.slice(2);
const port = Number(portText);

if (mode === 'serve') {
  const specs = process.argv.slice(3);
  let waiting = specs.length;
  const ready = (): void => {
    if (--waiting === 0) process.stdout.write('ready\n');
  };
  for (const spec of specs) {
    const [p, label, udp] = spec.split(':');
    if (udp === 'udp') {
      const s = createSocket('udp4');
      s.on('message', (_m, from) => s.send(label!, from.port, from.address));
      s.bind(Number(p), '0.0.0.0', ready);
    } else {
      createServer((c) => c.end(label)).listen(Number(p), '0.0.0.0', ready);
    }
  }
} else if (mode === 'dial') {
  const timer = setTimeout(() => {
    process.stdout.write('timeout\n');
    process.exit(0);
  }, 3000);
  const done = (text: string): void => {
    clearTimeout(timer);
    process.stdout.write(`${text}\n`);
    process.exit(0);
  };
  if (third === 'udp') {
    const s = createSocket(host!.includes(':') ? 'udp6' : 'udp4');
    s.on('message', (m) => done(m.toString()));
    s.on('error', (e) => done(`error: ${e.message}`));
    s.send('query', port, host);
  } else {
    let got = '';
    const c = connect({ host: host!, port });
    c.on('data', (d) => (got += d.toString()));
    c.on('end', () => done(got));
    c.on('error', (e) => done(`error: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
  }
} else {
  process.stderr.write('usage: netns-probe serve <port>:<label>[:udp] ... | dial <host> <port> [udp]\n');
  process.exit(2);
}
