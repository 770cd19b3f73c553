package dev.mailroom.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports for tests. */
public final class Ports {

    private Ports() {
    }

    /** A 127.0.0.1 port nothing listens on right now (for "connection refused"). */
    public static int unusedLoopbackPort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
