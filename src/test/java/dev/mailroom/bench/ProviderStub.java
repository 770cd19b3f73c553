package dev.mailroom.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A mail API with a fixed latency, for Mailroom's {@code http} provider with the {@code generic} profile: answers
 * {@code POST /messages} after sleeping {@code latencyMillis} with 200 {@code {"id":"stub-<n>"}}. It counts what it
 * receives so the benchmark can check that every job reached it exactly once, and the peak number of requests it
 * was serving at the same time (the concurrency Mailroom actually achieved). A request whose body contains
 * {@link #FAIL_MARKER} (the benchmark puts it in the job's message_id, which the subject repeats) is answered 422
 * {@code {"error":{"code":"invalid_recipient",...}}}, a permanent recipient failure in Mailroom's mapping table.
 */
final class ProviderStub implements AutoCloseable {

    static {
        // The JDK server writes response headers and body separately; with Nagle on, the body waits for the
        // client's delayed ACK (~40 ms on Linux loopback) and a "50 ms" provider answers in ~90 ms.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    static final String FAIL_MARKER = "-permfail-";

    private final long latencyMillis;
    private final HttpServer server;
    private final ExecutorService executor;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger unexpected = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final Set<String> keys = ConcurrentHashMap.newKeySet();

    ProviderStub(long latencyMillis, int threads) {
        this.latencyMillis = latencyMillis;
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "provider-stub");
            t.setDaemon(true);
            return t;
        });
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    long latencyMillis() {
        return latencyMillis;
    }

    /**
     * The stub's latency as a JDK HttpClient sees it (sequential POSTs on one keep-alive connection): the p50 and
     * max in ms. Resets the counts afterwards.
     */
    double[] selfCheck(int samples) {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .proxy(HttpClient.Builder.NO_PROXY).build();
        long[] nanos = new long[samples];
        try {
            for (int i = 0; i < samples; i++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl() + "/messages"))
                        .header("Content-Type", "application/json").header("Idempotency-Key", "self-check-" + i)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"" + "x".repeat(900) + "\"}"))
                        .build();
                long t0 = System.nanoTime();
                HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                nanos[i] = System.nanoTime() - t0;
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("provider stub answered " + r.statusCode() + ": " + r.body());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        reset();
        Arrays.sort(nanos);
        return new double[] {nanos[samples / 2] / 1e6, nanos[samples - 1] / 1e6};
    }

    /** Forgets the counts (before a measured run). */
    void reset() {
        requests.set(0);
        failed.set(0);
        unexpected.set(0);
        peak.set(inFlight.get());
        keys.clear();
    }

    int requests() {
        return requests.get();
    }

    /** Requests answered 422 because their body carried {@link #FAIL_MARKER}. */
    int failed() {
        return failed.get();
    }

    int distinctKeys() {
        return keys.size();
    }

    int unexpected() {
        return unexpected.get();
    }

    int peakConcurrency() {
        return peak.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            boolean fail = new String(in.readAllBytes(), StandardCharsets.UTF_8).contains(FAIL_MARKER);
            if (!"POST".equals(exchange.getRequestMethod()) || !exchange.getRequestURI().getPath().equals("/messages")) {
                unexpected.incrementAndGet();
                respond(exchange, 404, "{\"error\":{\"code\":\"not_found\"}}");
                return;
            }
            int now = inFlight.incrementAndGet();
            peak.accumulateAndGet(now, Math::max);
            try {
                requests.incrementAndGet();
                String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                keys.add(key == null ? "missing-" + ids.get() : key);
                Thread.sleep(latencyMillis);
                if (fail) {
                    failed.incrementAndGet();
                    respond(exchange, 422, "{\"error\":{\"code\":\"invalid_recipient\",\"message\":\"no such mailbox\"}}");
                    return;
                }
                respond(exchange, 200, "{\"id\":\"stub-" + ids.incrementAndGet() + "\"}");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                respond(exchange, 503, "{\"error\":{\"code\":\"stopping\"}}");
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
