/**
 * A plain TCP round-robin front for backend replicas, written for the failover test and the scaling
 * bench (issue 18): it listens on a random loopback port and pipes each accepted connection to the
 * next target in turn. A target that refuses the connection is skipped and the next one tried, like
 * a load balancer whose health check has not yet noticed the death. It knows nothing of WebSocket or
 * HTTP, so what passes through is exactly what a real L4 balancer would pass.
 */
import * as net from 'node:net';

export interface BalancerTarget {
  host: string;
  port: number;
}

export class TcpBalancer {
  private targets: BalancerTarget[] = [];
  private next = 0;
  private readonly sockets = new Set<net.Socket>();
  /** Open piped connections and where each goes. */
  private readonly piped = new Map<net.Socket, BalancerTarget>();
  /** How many accepted connections reached each `host:port`, for tests and the bench. */
  readonly connectionsPerTarget = new Map<string, number>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Starts listening on 127.0.0.1 on a port the system picks. */
  static async start(targets: readonly BalancerTarget[] = []): Promise<TcpBalancer> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const balancer = new TcpBalancer(server, (server.address() as net.AddressInfo).port);
    balancer.setTargets(targets);
    server.on('connection', (client) => balancer.accept(client));
    return balancer;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** Replaces the list; connections already piped stay where they are. */
  setTargets(targets: readonly BalancerTarget[]): void {
    this.targets = targets.map((t) => ({ ...t }));
    this.next = 0;
  }

  /** Where the connections piped now go (one entry per connection): which replica holds a client. */
  pipedTargets(): BalancerTarget[] {
    return [...this.piped.values()];
  }

  /** Stops accepting and cuts every piped connection. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    this.track(client);
    client.pause();
    client.on('error', () => client.destroy());
    // Every target is tried at most once per connection, starting where the round-robin stands.
    const order = this.targets.map((_, i) => this.targets[(this.next + i) % this.targets.length]);
    if (order.length > 0) this.next = (this.next + 1) % this.targets.length;
    this.tryTargets(client, order);
  }

  private tryTargets(client: net.Socket, remaining: BalancerTarget[]): void {
    const target = remaining[0];
    if (!target || client.destroyed) {
      client.destroy();
      return;
    }
    const upstream = net.connect({ host: target.host, port: target.port });
    upstream.setNoDelay(true);
    const refused = (): void => {
      upstream.destroy();
      this.tryTargets(client, remaining.slice(1));
    };
    upstream.once('error', refused);
    upstream.once('connect', () => {
      upstream.off('error', refused);
      this.track(upstream);
      const key = `${target.host}:${target.port}`;
      this.connectionsPerTarget.set(key, (this.connectionsPerTarget.get(key) ?? 0) + 1);
      this.piped.set(client, target);
      client.once('close', () => this.piped.delete(client));
      // Either side ending or failing ends both, so a killed replica looks like a dropped socket.
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.setNoDelay(true);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}
