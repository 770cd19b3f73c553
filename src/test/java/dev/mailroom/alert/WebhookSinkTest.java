package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.mailroom.testsupport.Ports;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The real webhook sink against a receiver on 127.0.0.1 (the JDK's HttpServer, ephemeral port). */
class WebhookSinkTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Clock CLOCK = Clock.fixed(T0.plusSeconds(10), ZoneOffset.UTC);

    private Receiver receiver;

    @AfterEach
    void stop() {
        if (receiver != null) {
            receiver.stop();
        }
    }

    /** A loopback Alertmanager stand-in: records each POST body and answers {@code status}. */
    static final class Receiver {
        final HttpServer server;
        final List<String> bodies = new CopyOnWriteArrayList<>();
        final List<String> contentTypes = new CopyOnWriteArrayList<>();
        final List<String> authorizations = new CopyOnWriteArrayList<>();
        final AtomicInteger status = new AtomicInteger(200);

        Receiver(int port) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 0);
            server.createContext("/api/v2/alerts", exchange -> {
                try (exchange) {
                    if (!exchange.getRequestMethod().equals("POST")) {
                        exchange.sendResponseHeaders(405, -1);
                        return;
                    }
                    bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                    contentTypes.add(exchange.getRequestHeaders().getFirst("Content-Type"));
                    String auth = exchange.getRequestHeaders().getFirst("Authorization");
                    authorizations.add(auth == null ? "none" : auth);
                    byte[] answer = (status.get() == 200 ? "" : "{\"error\":\"receiver broken\"}").getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(status.get(), answer.length == 0 ? -1 : answer.length);
                    if (answer.length > 0) {
                        exchange.getResponseBody().write(answer);
                    }
                }
            });
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        URI url() {
            return URI.create("http://127.0.0.1:" + port() + "/api/v2/alerts");
        }

        void stop() {
            server.stop(0);
        }
    }

    private static WebhookSink sink(URI url) {
        Map<String, String> config = Map.of("mailroom.alerts.webhook.url", url.toString(),
                "mailroom.alerts.webhook.connect-timeout", "1s",
                "mailroom.alerts.webhook.request-timeout", "5s",
                "mailroom.alerts.generator-url", "http://mailroom.test/api/v1/dead-letters");
        return WebhookSink.fromConfig(k -> Optional.ofNullable(config.get(k)), CLOCK).orElseThrow();
    }

    private static AlertDispatcher dispatcher(AlertSink sink) {
        return new AlertDispatcher(AlertDispatchSettings.defaults(), AlertRouting.defaults(), CLOCK, List.of(sink));
    }

    @Test
    void theReceiverGetsAnAlertmanagerShapedArray() throws Exception {
        receiver = new Receiver(0);
        AlertDispatcher d = dispatcher(sink(receiver.url()));
        for (int i = 0; i < 3; i++) {
            d.raise(AlertEvent.deadLetter("mail.send", "handler_error", "internal", "java.lang.NullPointerException",
                    "order-" + i, T0.plusSeconds(i)));
        }
        d.raise(AlertEvent.deadLetter("mail.send.bulk", "manual_review", "content_policy", null, "news-1", T0));
        d.tick(T0);
        d.tick(T0.plusSeconds(10));

        assertThat(receiver.bodies).hasSize(1);
        assertThat(receiver.contentTypes).containsExactly("application/json");
        assertThat(receiver.authorizations).containsExactly("none");
        JsonNode body = JSON.readTree(receiver.bodies.get(0));
        assertThat(body.isArray()).isTrue();
        assertThat(body).hasSize(2);

        JsonNode page = body.get(0);
        assertThat(JSON.convertValue(page.get("labels"), Map.class)).isEqualTo(Map.of("alertname", "DeadLetterArrived",
                "severity", "page", "queue", "mail.send", "reason", "handler_error"));
        assertThat(page.get("annotations").get("count").asText()).isEqualTo("3");
        assertThat(page.get("annotations").get("examples").asText()).isEqualTo("order-0, order-1, order-2");
        assertThat(page.get("annotations").get("summary").asText())
                .isEqualTo("Dead letter on mail.send with reason handler_error (3 times)");
        assertThat(page.get("annotations").get("description").asText())
                .contains("message order-2").contains("error_type java.lang.NullPointerException");
        assertThat(page.get("startsAt").asText()).isEqualTo("2030-01-01T00:00:00Z");
        assertThat(page.get("endsAt").asText()).isEqualTo("2030-01-01T01:00:10Z"); // sent at T0+10s, plus 1h
        assertThat(page.get("generatorURL").asText())
                .isEqualTo("http://mailroom.test/api/v1/dead-letters?queue=mail.send&reason=handler_error");

        JsonNode ticket = body.get(1);
        assertThat(ticket.get("labels").get("severity").asText()).isEqualTo("ticket");
        assertThat(ticket.get("labels").get("queue").asText()).isEqualTo("mail.send.bulk");
        assertThat(ticket.get("annotations").get("count").asText()).isEqualTo("1");
        for (JsonNode item : body) {
            assertThat(item.fieldNames()).toIterable()
                    .containsExactlyInAnyOrder("labels", "annotations", "startsAt", "endsAt", "generatorURL");
        }
    }

    @Test
    void anAnswerOtherThan2xxIsAFailureWithTheStatus() throws Exception {
        receiver = new Receiver(0);
        receiver.status.set(500);
        WebhookSink sink = sink(receiver.url());
        Alert a = AlertTest.alert("poison", Severity.TICKET, 1, List.of());
        assertThatThrownBy(() -> sink.deliver(List.of(a)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("answered 500")
                .hasMessageContaining("receiver broken");
        receiver.status.set(202);
        sink.deliver(List.of(a));
        assertThat(receiver.bodies).hasSize(2);
    }

    @Test
    void aReceiverThatIsDownIsRetriedUntilItIsBack() throws Exception {
        int port = Ports.unusedLoopbackPort();
        WebhookSink sink = sink(URI.create("http://127.0.0.1:" + port + "/api/v2/alerts"));
        AlertDispatcher d = dispatcher(sink);
        d.raise(AlertEvent.deadLetter("mail.send", "unmapped_error", "unknown", null, "m-1", T0));
        d.tick(T0);

        d.tick(T0.plusSeconds(10)); // connection refused
        assertThat(d.pending(sink)).hasSize(1);
        assertThat(d.nextAttempt(sink)).contains(T0.plusSeconds(11));
        d.tick(T0.plusSeconds(11)); // still refused
        assertThat(d.nextAttempt(sink)).contains(T0.plusSeconds(13));

        receiver = new Receiver(port); // back up, same port
        d.tick(T0.plusSeconds(12));
        assertThat(receiver.bodies).isEmpty(); // the backoff is honoured
        d.tick(T0.plusSeconds(13));

        assertThat(receiver.bodies).hasSize(1);
        JsonNode item = JSON.readTree(receiver.bodies.get(0)).get(0);
        assertThat(item.get("labels").get("reason").asText()).isEqualTo("unmapped_error");
        assertThat(item.get("annotations").get("examples").asText()).isEqualTo("m-1");
        assertThat(d.pending(sink)).isEmpty();
        assertThat(d.undeliverable()).isZero();
    }

    @Test
    void credentialsInTheUrlAreSentAsBasicAuthAndNeverNamed() throws Exception {
        receiver = new Receiver(0);
        WebhookSink s = sink(URI.create("http://alerts:s3cret@127.0.0.1:" + receiver.port() + "/api/v2/alerts"));
        assertThat(s.name()).isEqualTo("webhook http://127.0.0.1:" + receiver.port() + "/api/v2/alerts");

        s.deliver(List.of(AlertTest.alert("poison", Severity.TICKET, 1, List.of())));

        assertThat(receiver.authorizations).containsExactly("Basic " + java.util.Base64.getEncoder()
                .encodeToString("alerts:s3cret".getBytes(StandardCharsets.UTF_8)));
    }
}
