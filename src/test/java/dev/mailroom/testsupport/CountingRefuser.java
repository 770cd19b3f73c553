package dev.mailroom.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A relay that is down, but counts: it binds a loopback port, accepts every connection and closes it at
 * once without a greeting (so the client fails before anything is written, like a refused connection),
 * and records when each connection came. It shows how often a client knocked on a dead relay's door.
 */
public final class CountingRefuser implements AutoCloseable {

    private final ServerSocket socket;
    private final List<Instant> connections = new ArrayList<>(); // guarded by itself
    private final Thread acceptor;

    private CountingRefuser(int port) {
        try {
            socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind loopback port " + port, e);
        }
        acceptor = new Thread(this::accept, "counting-refuser-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Binds {@code port} on loopback (0: an ephemeral one). */
    public static CountingRefuser bind(int port) {
        return new CountingRefuser(port);
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** When each connection came, oldest first. */
    public List<Instant> connections() {
        synchronized (connections) {
            return List.copyOf(connections);
        }
    }

    /** Connections at or after {@code from}. */
    public List<Instant> connectionsSince(Instant from) {
        return connections().stream().filter(t -> !t.isBefore(from)).toList();
    }

    private void accept() {
        while (!socket.isClosed()) {
            try (Socket s = socket.accept()) {
                synchronized (connections) {
                    connections.add(Instant.now());
                }
                s.setSoLinger(true, 0); // a reset, not a polite close
            } catch (IOException e) {
                if (socket.isClosed()) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
            acceptor.join(2000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
