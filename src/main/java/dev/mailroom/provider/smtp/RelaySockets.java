package dev.mailroom.provider.smtp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * The socket factory of this provider's session: plain sockets, as Angus would make them, each remembered
 * for the thread that connected until {@link #claim} takes it (Angus connects on the calling thread).
 */
final class RelaySockets extends SocketFactory {
    private final ThreadLocal<Socket> connected = new ThreadLocal<>();

    /** The socket the calling thread's last connect made, forgotten here. */
    Socket claim() {
        Socket s = connected.get();
        connected.remove();
        return s;
    }

    private Socket remember(Socket s) {
        connected.set(s);
        return s;
    }

    @Override
    public Socket createSocket() {
        return remember(new Socket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return remember(new Socket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return remember(new Socket(host, port, localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return remember(new Socket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return remember(new Socket(address, port, localAddress, localPort));
    }
}
