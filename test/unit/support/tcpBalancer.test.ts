/**
 * The round-robin TCP front the failover test and the bench put before backend replicas: it takes
 * turns over its targets, skips one that refuses, follows `setTargets`, and cuts piped connections
 * when a target dies or the front closes. Real loopback sockets throughout.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { TcpBalancer, type BalancerTarget } from '../../support/tcpBalancer';

/** A TCP server that greets every connection with its name, then echoes. */
async function namedServer(name: string): Promise<{ target: BalancerTarget; server: net.Server; sockets: Set<net.Socket> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.write(`${name}\n`);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { target: { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port }, server, sockets };
}

/** A port nothing listens on: bound, read, closed. */
async function deadPort(): Promise<BalancerTarget> {
  const probe = await namedServer('dead');
  await new Promise<void>((resolve) => probe.server.close(() => resolve()));
  return probe.target;
}

/** Connects through the front and returns the first line (the server's name) plus the socket. */
async function greeting(port: number): Promise<{ name: string; socket: net.Socket }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  return new Promise((resolve, reject) => {
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolve({ name: buffered.slice(0, newline), socket });
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed before a greeting')));
  });
}

function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

describe('TcpBalancer', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function servers(...names: string[]) {
    const started = await Promise.all(names.map(namedServer));
    for (const s of started) {
      cleanups.push(() => {
        for (const socket of s.sockets) socket.destroy();
        return new Promise<void>((resolve) => s.server.close(() => resolve()));
      });
    }
    return started;
  }

  async function front(targets: BalancerTarget[]): Promise<TcpBalancer> {
    const balancer = await TcpBalancer.start(targets);
    cleanups.push(() => balancer.close());
    return balancer;
  }

  it('takes turns over its targets and pipes bytes both ways', async () => {
    const [a, b] = await servers('a', 'b');
    const balancer = await front([a.target, b.target]);
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { name, socket } = await greeting(balancer.port);
      names.push(name);
      socket.destroy();
    }
    assert.deepEqual(names, ['a', 'b', 'a', 'b']);
    const { socket } = await greeting(balancer.port);
    const echoed = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(chunk.toString())));
    socket.write('ping');
    assert.equal(await echoed, 'ping');
    socket.destroy();
  });

  it('skips a target that refuses the connection', async () => {
    const [a] = await servers('a');
    const balancer = await front([await deadPort(), a.target, await deadPort()]);
    for (let i = 0; i < 3; i++) {
      const { name, socket } = await greeting(balancer.port);
      assert.equal(name, 'a');
      socket.destroy();
    }
    assert.equal(balancer.connectionsPerTarget.get(`127.0.0.1:${a.target.port}`), 3);
  });

  it('closes the client when every target refuses', async () => {
    const balancer = await front([await deadPort()]);
    await assert.rejects(greeting(balancer.port), /closed before a greeting/);
  });

  it('follows setTargets for new connections', async () => {
    const [a, b] = await servers('a', 'b');
    const balancer = await front([a.target]);
    const first = await greeting(balancer.port);
    assert.equal(first.name, 'a');
    balancer.setTargets([b.target]);
    const second = await greeting(balancer.port);
    assert.equal(second.name, 'b');
    first.socket.destroy();
    second.socket.destroy();
  });

  it('cuts the client when its target dies, and cuts everything on close', async () => {
    const [a, b] = await servers('a', 'b');
    const balancer = await TcpBalancer.start([a.target, b.target]);
    const onA = await greeting(balancer.port);
    const onB = await greeting(balancer.port);
    assert.deepEqual(balancer.pipedTargets().map((t) => t.port), [a.target.port, b.target.port]);
    for (const socket of a.sockets) socket.destroy();
    await closed(onA.socket);
    assert.equal(onB.socket.destroyed, false);
    for (const deadline = Date.now() + 5000; balancer.pipedTargets().length > 1 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(balancer.pipedTargets().map((t) => t.port), [b.target.port]);
    await balancer.close();
    await closed(onB.socket);
  });
});
