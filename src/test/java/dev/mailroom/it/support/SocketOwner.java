package dev.mailroom.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Which process holds a loopback TCP connection, read from Linux's {@code /proc}: the socket's inode from
 * {@code /proc/net/tcp} and {@code tcp6} (by its local and remote port), then the process's open files
 * ({@code /proc/<pid>/fd}, links {@code socket:[inode]}). For {@link TcpFaultProxy}, which must tell a broker's
 * replica from its clients, all of them on 127.0.0.1.
 */
final class SocketOwner {

    private SocketOwner() {
    }

    /** The inode of the socket whose local port is {@code localPort} and remote port {@code remotePort}, or null. */
    static String inode(int localPort, int remotePort) {
        String local = String.format(":%04X", localPort);
        String remote = String.format(":%04X", remotePort);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                    if (f.length > 9 && f[1].endsWith(local) && f[2].endsWith(remote)) {
                        return f[9];
                    }
                }
            } catch (IOException e) {
                // no such table (no IPv6): the other one
            }
        }
        return null;
    }

    /** Whether the process {@code pid} has the socket {@code inode} open. */
    static boolean holds(long pid, String inode) {
        String link = "socket:[" + inode + "]";
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.anyMatch(fd -> {
                try {
                    return link.equals(Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    return false; // closed meanwhile
                }
            });
        } catch (IOException e) {
            return false; // the process is gone
        }
    }
}
