package dev.mailroom.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on loopback between the nodes and a server of the topology (the database, the relay, the broker), which
 * makes the network faults a port that refuses cannot: {@link #latency} holds every answer of the server back by a
 * given time (a slow database: each round trip that much longer), {@link #blackhole} stops forwarding in both
 * directions without closing anything (a dropped firewall state, a half-open connection: the client's reads neither
 * answer nor fail) until it is lifted, and then forwards what waited. Everything else passes through: a connection
 * the server refuses or closes is closed on the client's side as well. The proxy listens on a port the OS picks
 * ({@link #port}): outside the ephemeral range's reach of a client reconnecting to itself; or on a given one, where
 * the server is known to its clients ({@link #start(String, int, int)}). A blackhole may spare the connections of
 * some processes (by pid, looked up in {@code /proc}): a broker's replica keeps replicating through a hang of its
 * clients' connections.
 */
public final class TcpFaultProxy implements AutoCloseable {

    /** What one direction of one connection read, and when it may be written on. */
    private record Chunk(byte[] bytes, int length, long dueNanos) {
        static final Chunk END = new Chunk(new byte[0], -1, 0);
    }

    private final String name;
    private final int upstreamPort;
    private volatile ServerSocket listener;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** Per connection (its client-side socket): whether the blackhole passes it by. */
    private final Map<Socket, AtomicBoolean> spared = new ConcurrentHashMap<>();
    private volatile long latencyNanos;
    private volatile boolean blackhole;
    private volatile Set<Long> sparedPids = Set.of();
    private volatile boolean closed;
    private volatile boolean mirror;

    private TcpFaultProxy(String name, int listenPort, int upstreamPort) throws IOException {
        this.name = name;
        this.upstreamPort = upstreamPort;
        this.port = bind(listenPort);
    }

    private synchronized int bind(int listenPort) throws IOException {
        ServerSocket l = new ServerSocket();
        l.setReuseAddress(true);
        l.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort), 200);
        listener = l;
        Thread accept = new Thread(() -> accept(l), "proxy-" + name + "-accept");
        accept.setDaemon(true);
        accept.start();
        return l.getLocalPort();
    }

    /**
     * Stops listening, so that a connection to the proxy's port is refused, as a server's port is while the server is
     * down: accepted and closed at once is another thing to a client (the Artemis client, failing over, then waits
     * its call timeout on such a connection). Connections open through the proxy stay.
     */
    public synchronized void stopListening() {
        closeQuietly(listener);
        log("stopped listening (its server is down)");
    }

    /**
     * From now on the proxy refuses while its server does: it stops listening when the server refuses a connection
     * (or at once, here) and listens again once the server accepts one (polled every 100 ms), so a client meets a dead
     * server's refusal and a restarted one's port as it would without the proxy.
     */
    public synchronized void mirrorTheServersListening() {
        mirror = true;
    }

    /** Stops listening until the server listens again (see {@link #mirrorTheServersListening}). */
    public synchronized void stopListeningWhileTheServerIsDown() {
        if (listener.isClosed()) {
            return;
        }
        stopListening();
        Thread watch = new Thread(() -> {
            while (!closed) {
                try (Socket probe = new Socket()) {
                    probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 1_000);
                    if (probe.getLocalPort() != upstreamPort) {
                        listen();
                        return;
                    }
                } catch (IOException refused) {
                    // still down
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "proxy-" + name + "-watch");
        watch.setDaemon(true);
        watch.start();
    }

    /** Listens again on the same port after {@link #stopListening}; nothing when it listens. */
    public synchronized void listen() {
        if (closed || !listener.isClosed()) {
            return;
        }
        try {
            bind(port);
        } catch (IOException e) {
            throw new UncheckedIOException("proxy " + name + " could not listen on :" + port + " again", e);
        }
        log("listening again");
    }

    /** A proxy to {@code 127.0.0.1:upstreamPort}, forwarding at once. */
    public static TcpFaultProxy start(String name, int upstreamPort) {
        return start(name, 0, upstreamPort);
    }

    /** A proxy listening on {@code 127.0.0.1:listenPort} (0: any) to {@code 127.0.0.1:upstreamPort}. */
    public static TcpFaultProxy start(String name, int listenPort, int upstreamPort) {
        try {
            return new TcpFaultProxy(name, listenPort, upstreamPort);
        } catch (IOException e) {
            throw new UncheckedIOException("proxy " + name + " could not listen on :" + listenPort, e);
        }
    }

    /** Where clients connect. */
    public int port() {
        return port;
    }

    /** Holds every chunk the server sends back by {@code latency} from when it arrived ({@link Duration#ZERO}: none). */
    public void latency(Duration latency) {
        latencyNanos = latency.toNanos();
        log("latency " + latency);
    }

    /** On: nothing is forwarded either way and nothing is closed; off: what waited goes on, in order. */
    public void blackhole(boolean on) {
        blackhole(on, Set.of());
    }

    /**
     * As {@link #blackhole(boolean)}, but the connections opened by the processes {@code sparedPids} (now or during
     * the blackhole) go on forwarding.
     */
    public void blackhole(boolean on, Set<Long> sparedPids) {
        synchronized (this) {
            this.sparedPids = Set.copyOf(sparedPids);
            int passed = 0;
            for (Map.Entry<Socket, AtomicBoolean> c : spared.entrySet()) {
                boolean spare = on && ownedByAny(c.getKey());
                c.getValue().set(spare);
                passed += spare ? 1 : 0;
            }
            blackhole = on;
            notifyAll();
            log(on ? "blackhole: forwarding stopped, connections left open" + (sparedPids.isEmpty() ? ""
                    : " (" + passed + " of " + spared.size() + " connections, those of pids " + sparedPids
                    + ", go on)") : "blackhole lifted: forwarding again");
        }
    }

    /**
     * Resets every connection open through the proxy (RST, not an orderly close), as a server that goes away does to
     * its clients: a client's next write fails, instead of landing in the proxy's buffer for a server that is gone.
     */
    public void resetConnections() {
        for (Socket s : sockets) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException e) {
                // already closed
            }
            closeQuietly(s);
        }
        log("connections reset");
    }

    /** Connections open through the proxy now. */
    public int connections() {
        return (int) sockets.stream().filter(s -> !s.isClosed()).count() / 2;
    }

    @Override
    public void close() {
        closed = true;
        blackhole(false);
        closeQuietly(listener);
        sockets.forEach(TcpFaultProxy::closeQuietly);
    }

    private void accept(ServerSocket listener) {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket server = new Socket();
            try {
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 5_000);
                if (server.getLocalPort() == upstreamPort) {
                    // a TCP self-connect to a server port nobody listens on: as refused
                    throw new java.net.ConnectException("self-connect to :" + upstreamPort);
                }
            } catch (IOException e) {
                closeQuietly(client); // the server refuses: so does the proxy, at once
                closeQuietly(server);
                if (mirror) {
                    stopListeningWhileTheServerIsDown();
                }
                continue;
            }
            sockets.add(client);
            sockets.add(server);
            AtomicBoolean spare = new AtomicBoolean(blackhole && ownedByAny(client));
            spared.put(client, spare);
            java.util.concurrent.atomic.AtomicInteger ended = new java.util.concurrent.atomic.AtomicInteger();
            Runnable directionEnded = () -> {
                if (ended.incrementAndGet() == 2) { // both ways half-closed: the connection is over
                    closeQuietly(client);
                    closeQuietly(server);
                    sockets.remove(client);
                    sockets.remove(server);
                    spared.remove(client);
                }
            };
            pipe(client, server, false, spare, directionEnded);
            pipe(server, client, true, spare, directionEnded);
        }
    }

    /**
     * One direction: a reader that stamps what it reads, a writer that waits for its time (and the blackhole) and
     * passes an orderly end on as a half-close; a reset closes both sockets, which ends the other direction too.
     */
    private void pipe(Socket from, Socket to, boolean answers, AtomicBoolean spare, Runnable ended) {
        LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        String direction = answers ? "answers" : "requests";
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                int n;
                while ((n = in.read(buffer)) > 0) {
                    long delay = answers ? latencyNanos : 0;
                    queue.add(new Chunk(java.util.Arrays.copyOf(buffer, n), n, System.nanoTime() + delay));
                }
                queue.add(Chunk.END);
            } catch (IOException e) {
                closeQuietly(from);
                closeQuietly(to);
                queue.add(Chunk.END);
            }
        }, "proxy-" + name + "-read-" + direction);
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk c = queue.take();
                    awaitForwarding(spare);
                    if (c.length() < 0) {
                        break;
                    }
                    long wait = c.dueNanos() - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    awaitForwarding(spare);
                    out.write(c.bytes(), 0, c.length());
                    out.flush();
                }
                if (!to.isClosed()) {
                    to.shutdownOutput();
                }
            } catch (IOException | InterruptedException e) {
                closeQuietly(from);
                closeQuietly(to);
            } finally {
                ended.run();
            }
        }, "proxy-" + name + "-write-" + direction);
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    private synchronized void awaitForwarding(AtomicBoolean spare) throws InterruptedException {
        while (blackhole && !spare.get() && !closed) {
            wait();
        }
    }

    /**
     * Whether the client end of an accepted connection belongs to one of {@link #sparedPids}: its socket's inode,
     * found in {@code /proc/net/tcp} (and {@code tcp6}) by the pair of ports, among the process's open files.
     */
    private boolean ownedByAny(Socket client) {
        Set<Long> pids = sparedPids;
        if (pids.isEmpty()) {
            return false;
        }
        String inode = SocketOwner.inode(client.getPort(), client.getLocalPort());
        return inode != null && pids.stream().anyMatch(pid -> SocketOwner.holds(pid, inode));
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    private void log(String message) {
        System.err.println("[it-support] proxy " + name + " :" + port() + " -> :" + upstreamPort + ": " + message);
    }

    @Override
    public String toString() {
        return "proxy " + name + " :" + port() + " -> :" + upstreamPort;
    }
}
