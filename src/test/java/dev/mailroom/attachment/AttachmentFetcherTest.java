package dev.mailroom.attachment;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fetch against a real HTTP server on the loopback address, the only prefix allowed being its {@code /files/}. */
class AttachmentFetcherTest {

    private static final byte[] PDF = "%PDF-1.4 invoice".getBytes(StandardCharsets.US_ASCII);
    private static final String SHA = dev.mailroom.provider.MailAttachment.sha256Of(PDF);

    private HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();
    private final CountDownLatch release = new CountDownLatch(1);
    private String base;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        requests.incrementAndGet();
        String path = ex.getRequestURI().getPath();
        switch (path) {
            case "/files/ok.pdf" -> reply(ex, 200, PDF);
            case "/files/other.pdf" -> reply(ex, 200, "%PDF-1.4 another".getBytes(StandardCharsets.US_ASCII));
            case "/files/longer.pdf" -> reply(ex, 200, "%PDF-1.4 invoice and then some".getBytes(StandardCharsets.US_ASCII));
            case "/files/gone.pdf" -> reply(ex, 410, "gone".getBytes(StandardCharsets.US_ASCII));
            case "/files/broken.pdf" -> reply(ex, 503, "maintenance".getBytes(StandardCharsets.US_ASCII));
            case "/files/moved.pdf" -> redirect(ex, "/files/ok.pdf");
            case "/files/away.pdf" -> redirect(ex, "/private/ok.pdf");
            case "/files/loop.pdf" -> redirect(ex, "/files/loop.pdf");
            case "/files/slow.pdf" -> {
                try {
                    release.await(); // until the test ends: longer than the fetch's timeout
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                reply(ex, 200, PDF);
            }
            default -> reply(ex, 404, "not found".getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static void reply(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
        ex.close();
    }

    private static void redirect(HttpExchange ex, String location) throws IOException {
        ex.getResponseHeaders().add("Location", location);
        ex.sendResponseHeaders(302, -1);
        ex.close();
    }

    private AttachmentFetcher fetcher() {
        return new AttachmentFetcher(new AttachmentSettings(List.of(base + "/files/"), 1_000_000, 2_000_000,
                Duration.ofSeconds(2), Duration.ofSeconds(1), 3, 0));
    }

    @Test
    void theDeclaredBytesAreFetched() {
        assertThat(fetcher().fetch(base + "/files/ok.pdf", SHA, PDF.length))
                .isInstanceOfSatisfying(FetchOutcome.Fetched.class, f -> assertThat(f.content()).isEqualTo(PDF));
    }

    @Test
    void aRedirectUnderTheListIsFollowedAndOneOffItIsRefusedWithoutARequest() {
        assertThat(fetcher().fetch(base + "/files/moved.pdf", SHA, PDF.length)).isInstanceOf(FetchOutcome.Fetched.class);
        requests.set(0);
        assertThat(fetcher().fetch(base + "/files/away.pdf", SHA, PDF.length))
                .isInstanceOfSatisfying(FetchOutcome.Refused.class, r -> assertThat(r.why())
                        .startsWith("a redirect to " + base + "/private/ok.pdf: ").contains("under none"));
        assertThat(requests).as("only the redirecting request").hasValue(1);
        assertThat(fetcher().fetch(base + "/files/loop.pdf", SHA, PDF.length))
                .isInstanceOfSatisfying(FetchOutcome.Refused.class, r -> assertThat(r.why()).isEqualTo("more than 3 redirects"));
    }

    @Test
    void otherBytesThanThePinnedOnesAreAMismatch() {
        assertThat(fetcher().fetch(base + "/files/other.pdf", SHA, PDF.length))
                .isInstanceOfSatisfying(FetchOutcome.Mismatch.class, m -> assertThat(m.why()).startsWith("SHA-256 "));
        assertThat(fetcher().fetch(base + "/files/longer.pdf", SHA, PDF.length))
                .isInstanceOfSatisfying(FetchOutcome.Mismatch.class,
                        m -> assertThat(m.why()).isEqualTo("more than the declared " + PDF.length + " bytes"));
        assertThat(fetcher().fetch(base + "/files/ok.pdf", SHA, PDF.length + 1))
                .isInstanceOfSatisfying(FetchOutcome.Mismatch.class, m -> assertThat(m.why()).contains("the job declared"));
    }

    @Test
    void theSourcesAnswersAreKept() {
        assertThat(fetcher().fetch(base + "/files/none.pdf", SHA, PDF.length))
                .isEqualTo(new FetchOutcome.Answered(404, "not found"));
        assertThat(fetcher().fetch(base + "/files/gone.pdf", SHA, PDF.length))
                .isEqualTo(new FetchOutcome.Answered(410, "gone"));
        assertThat(fetcher().fetch(base + "/files/broken.pdf", SHA, PDF.length))
                .isEqualTo(new FetchOutcome.Answered(503, "maintenance"));
    }

    @Test
    void aSourceSlowerThanTheTimeoutIsUnreachable() {
        assertThat(fetcher().fetch(base + "/files/slow.pdf", SHA, PDF.length))
                .isInstanceOfSatisfying(FetchOutcome.Unreachable.class,
                        u -> assertThat(u.why()).contains("mailroom.attachments.timeout"));
    }

    @Test
    void aListedNameThatResolvesInsideTheNetworkIsNeverRequested() {
        int port = server.getAddress().getPort();
        AttachmentFetcher byName = new AttachmentFetcher(new AttachmentSettings(
                List.of("http://files.shop.example:" + port + "/files/"), 1_000_000, 2_000_000, Duration.ofSeconds(2),
                Duration.ofSeconds(1), 3, 0), host -> List.of(InetAddress.getLoopbackAddress()));
        assertThat(byName.fetch("http://files.shop.example:" + port + "/files/ok.pdf", SHA, PDF.length))
                .isInstanceOfSatisfying(FetchOutcome.Refused.class, r -> assertThat(r.why()).contains("internal address"));
        assertThat(requests).hasValue(0);
    }
}
