package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link TcpFaultProxy} in front of an echo server on loopback: passes through, holds answers back, blackholes. */
class TcpFaultProxyTest {

    private ServerSocket echo;
    private TcpFaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread c = new Thread(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            in.transferTo(out);
                        } catch (IOException e) {
                            // the client went
                        }
                    });
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        proxy = TcpFaultProxy.start("echo", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void passesBytesBothWaysAndAnOrderlyEnd() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "ping")).isEqualTo("ping");
            s.shutdownOutput();
            assertThat(s.getInputStream().read()).as("the server's end passed on").isEqualTo(-1);
        }
    }

    @Test
    void latencyHoldsEveryAnswerBackAtLeastThatLong() throws IOException {
        try (Socket s = connect()) {
            proxy.latency(Duration.ofMillis(300));
            long start = System.nanoTime();
            assertThat(roundTrip(s, "slow")).isEqualTo("slow");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            proxy.latency(Duration.ZERO);
            assertThat(roundTrip(s, "fast")).isEqualTo("fast");
        }
    }

    /** A blackhole: the client's read neither answers nor fails (only its own timeout ends it); lifted, all arrives. */
    @Test
    void aBlackholeNeitherAnswersNorClosesAndWhatWaitedArrivesWhenLifted() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "before")).isEqualTo("before");
            proxy.blackhole(true);
            s.getOutputStream().write("during".getBytes(StandardCharsets.US_ASCII));
            s.setSoTimeout(500);
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(s.isClosed()).isFalse();
            assertThat(proxy.connections()).isEqualTo(1);

            proxy.blackhole(false);
            s.setSoTimeout(10_000);
            byte[] back = new byte[6];
            new DataInputStream(s.getInputStream()).readFully(back);
            assertThat(new String(back, StandardCharsets.US_ASCII)).isEqualTo("during");
        }
    }

    /**
     * A blackhole sparing a process passes its connections on, old and new (a broker's replica keeps replicating):
     * this JVM's when its pid is spared, none when another process's is.
     */
    @Test
    void aBlackholeSparingAProcessForwardsItsConnectionsOnly() throws IOException {
        long self = ProcessHandle.current().pid();
        try (Socket old = connect()) {
            old.setSoTimeout(10_000);
            assertThat(roundTrip(old, "before")).isEqualTo("before");
            proxy.blackhole(true, java.util.Set.of(self));
            assertThat(roundTrip(old, "spared")).isEqualTo("spared");
            try (Socket opened = connect()) {
                opened.setSoTimeout(10_000);
                assertThat(roundTrip(opened, "new")).isEqualTo("new");
            }
            proxy.blackhole(true, java.util.Set.of(ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(1L)));
            old.getOutputStream().write("held".getBytes(StandardCharsets.US_ASCII));
            old.setSoTimeout(500);
            assertThatThrownBy(() -> old.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            proxy.blackhole(false);
        }
    }

    /** A proxy may take the port its server is known by (the server then listens elsewhere). */
    @Test
    void listensOnTheGivenPort() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        try (TcpFaultProxy onPort = TcpFaultProxy.start("fixed", port, echo.getLocalPort());
             Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            assertThat(onPort.port()).isEqualTo(port);
            assertThat(roundTrip(s, "there")).isEqualTo("there");
        }
    }

    /** A server that goes away (its process killed: the kernel closes its sockets) closes the client's connection too. */
    @Test
    void aServerThatGoesAwayClosesTheClientsConnection() throws Exception {
        try (ServerSocket dying = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             TcpFaultProxy toDying = TcpFaultProxy.start("dying", dying.getLocalPort());
             Socket s = new Socket(InetAddress.getLoopbackAddress(), toDying.port())) {
            Socket accepted = dying.accept();
            s.getOutputStream().write("unread".getBytes(StandardCharsets.US_ASCII)); // left unread: the close is a reset
            Thread.sleep(200);
            accepted.close();
            s.setSoTimeout(10_000);
            int read;
            try {
                read = s.getInputStream().read();
            } catch (java.net.SocketException reset) {
                read = -1;
            }
            assertThat(read).as("the client sees the end, not a silent connection").isEqualTo(-1);
        }
    }

    /** Not listening, the proxy's port refuses, as its server's does while the server is down; then listens again. */
    @Test
    void stopsListeningAndListensAgainOnTheSamePort() throws IOException {
        proxy.stopListening();
        assertThatThrownBy(this::connect).isInstanceOf(java.net.ConnectException.class);
        proxy.listen();
        try (Socket s = connect()) {
            s.setSoTimeout(10_000);
            assertThat(roundTrip(s, "again")).isEqualTo("again");
        }
    }

    /** Mirroring its server, the proxy refuses while the server is down and listens again once it is back. */
    @Test
    void refusesWhileItsServerIsDownAndListensOnceItIsBack() throws Exception {
        int serverPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            serverPort = free.getLocalPort();
        }
        try (TcpFaultProxy mirroring = TcpFaultProxy.start("mirroring", serverPort)) {
            mirroring.mirrorTheServersListening();
            mirroring.stopListeningWhileTheServerIsDown();
            assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), mirroring.port()).close())
                    .isInstanceOf(java.net.ConnectException.class);
            try (ServerSocket back = new ServerSocket()) {
                back.setReuseAddress(true);
                back.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), serverPort));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
                    new Socket(InetAddress.getLoopbackAddress(), mirroring.port()).close();
                    return true;
                });
            }
        }
    }

    /** A reset: the client's read fails at once with the reset, not an orderly end a write could still follow. */
    @Test
    void aResetIsSeenByTheClientAsAReset() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "before")).isEqualTo("before");
            proxy.resetConnections();
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(java.net.SocketException.class)
                    .hasMessageContaining("reset");
            assertThat(proxy.connections()).isZero();
        }
    }

    @Test
    void aServerThatRefusesIsAConnectionClosedAtOnce() throws IOException {
        int port = refusingPort();
        try (TcpFaultProxy toNothing = TcpFaultProxy.start("nothing", port); Socket s = new Socket(
                InetAddress.getLoopbackAddress(), toNothing.port())) {
            s.setSoTimeout(10_000);
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    /**
     * A loopback port nothing listens on and nothing will: below 1024, where only a privileged process binds and no
     * outgoing connection takes its source port. A port just closed is no such port: another test's listener, or the
     * proxy's own outgoing connection to it (a TCP self-connect), may take it meanwhile, and did in a full build.
     */
    private static int refusingPort() {
        for (int port = 1; port < 1024; port++) {
            try (Socket probe = new Socket()) {
                probe.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            } catch (java.net.ConnectException refused) {
                return port;
            } catch (IOException other) {
                // a timeout or a listener: not this one
            }
        }
        throw new IllegalStateException("every loopback port below 1024 answers");
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        s.setSoTimeout(10_000);
        return s;
    }

    private static String roundTrip(Socket s, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        s.getOutputStream().write(bytes);
        byte[] back = new byte[bytes.length];
        new DataInputStream(s.getInputStream()).readFully(back);
        return new String(back, StandardCharsets.US_ASCII);
    }
}
