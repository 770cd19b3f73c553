package dev.mailroom.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * An Alertmanager-like webhook receiver on 127.0.0.1 ({@code POST /alerts}, a JSON array of alerts)
 * that records what it got and can be taken down and brought back on the same port.
 */
public final class AlertReceiver implements AutoCloseable {

    /** One alert as received, with when it arrived. */
    public record Received(JsonNode alert, Instant at) {
        public String label(String name) {
            return alert.path("labels").path(name).asText(null);
        }

        public long count() {
            return Long.parseLong(alert.path("annotations").path("count").asText("1"));
        }
    }

    private final ObjectMapper json = new ObjectMapper();
    private final List<Received> received = new ArrayList<>();
    private final int port;
    private HttpServer server;

    private AlertReceiver(int port) {
        this.port = port;
    }

    public static AlertReceiver start() {
        AlertReceiver r = new AlertReceiver(dev.mailroom.testsupport.Ports.unusedLoopbackPort());
        r.up();
        return r;
    }

    public String url() {
        return "http://127.0.0.1:" + port + "/alerts";
    }

    public synchronized void up() {
        if (server != null) {
            return;
        }
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 50);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/alerts", exchange -> {
            try (exchange) {
                JsonNode body = json.readTree(exchange.getRequestBody());
                Instant now = Instant.now();
                synchronized (AlertReceiver.this) {
                    body.forEach(a -> received.add(new Received(a, now)));
                }
                exchange.sendResponseHeaders(200, -1);
            }
        });
        server.start();
    }

    /** Stops answering: the port is closed, deliveries fail until {@link #up()}. */
    public synchronized void down() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    public synchronized List<Received> since(Instant t) {
        return received.stream().filter(r -> !r.at().isBefore(t)).toList();
    }

    @Override
    public void close() {
        down();
    }
}
