package dev.mailroom.it.support;

import java.security.MessageDigest;
import java.util.HexFormat;
import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.provider.smtp.SmtpProvider;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;

/** Send jobs and their expectations, as the integration tests write them. */
public final class Jobs {

    /** The Message-ID domain Mailroom uses by default (mailroom.smtp.message-id-domain). */
    public static final String MESSAGE_ID_DOMAIN = "mailroom.local";

    private Jobs() {
    }

    /** A prefix no other test run uses, so tests sharing one server never see each other's jobs. */
    public static String runPrefix(String name) {
        return name + "-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    }

    /**
     * A rendered job to alice. Every job here carries a one-click unsubscribe, so the same job is valid on the bulk
     * queue (which requires one) and on the transactional one.
     */
    public static String job(String messageId) {
        return """
                {"schema_version": 1, "message_id": "%s", "tenant": "it", "campaign_id": "it-campaign",
                 "unsubscribe": {"url": "https://example.com/unsubscribe/it"},
                 "from": "Mailroom IT <noreply@example.com>", "to": ["alice@example.com"],
                 "subject": "Hello %s", "text": "Hi Alice, this is %s."}""".formatted(messageId, messageId, messageId);
    }

    /** {@link #job} to {@code to} (one recipient each), tenant "it". */
    public static String jobTo(String messageId, List<String> to) {
        String recipients = String.join(", ", to.stream().map(a -> "\"" + a + "\"").toList());
        return """
                {"schema_version": 1, "message_id": "%s", "tenant": "it", "campaign_id": "it-campaign",
                 "unsubscribe": {"url": "https://example.com/unsubscribe/it"},
                 "from": "Mailroom IT <noreply@example.com>", "to": [%s],
                 "subject": "Hello %s", "text": "Hi, this is %s."}""".formatted(messageId, recipients, messageId, messageId);
    }

    public static List<String> ids(String prefix, int n) {
        List<String> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(prefix + i);
        }
        return ids;
    }

    public static List<String> jobs(List<String> ids) {
        return ids.stream().map(Jobs::job).toList();
    }

    /** The stable Message-ID the SMTP provider gives a job whose idempotency key is {@code key}. */
    public static String smtpMessageId(String key) {
        return SmtpProvider.messageIdFor(key, MESSAGE_ID_DOMAIN);
    }

    /** The event types of a job's timeline, in order. */
    public static java.util.List<String> types(JsonNode job) {
        java.util.List<String> types = new ArrayList<>();
        job.path("timeline").forEach(e -> types.add(e.path("type").asText()));
        return types;
    }

    /** Sleeps; an interrupt fails the test instead of being lost. */
    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits (bounded) until no send queue holds a message, ready, scheduled (a retry) or being delivered:
     * from then on nothing is left that could still reach a provider. The positive check that replaces
     * "sleep a while and see that nothing more arrived".
     */
    public static void awaitSendQueuesDrained(ApiClient api, Duration timeout) {
        Awaitility.await("send queues drained (depth and in-flight 0)")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    JsonNode queues = api.getJson("/api/v1/queues");
                    for (JsonNode q : queues) {
                        if (q.path("depth").asLong() != 0 || q.path("in_flight").asLong() != 0) {
                            return false;
                        }
                    }
                    return queues.size() > 0;
                });
    }

    /**
     * Waits (bounded) for the one dead letter of {@code messageId} on {@code queue} and returns its detail
     * ({@code GET /api/v1/dead-letters/{id}}); on a timeout the failure shows the job as the API has it.
     */
    public static JsonNode awaitDeadLetter(ApiClient api, String queue, String messageId, Duration timeout) {
        JsonNode item;
        try {
            item = Awaitility.await("a dead letter for " + messageId)
                    .atMost(timeout).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        JsonNode items = api.getJson("/api/v1/dead-letters?queue=" + queue + "&message_id=" + messageId
                                + "&limit=10").path("items");
                        return items.size() == 1 ? items.get(0) : null;
                    }, java.util.Objects::nonNull);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no dead letter for " + messageId + " on " + queue + "; the job: "
                    + api.get("/api/v1/jobs/" + messageId).body(), e);
        }
        return api.getJson("/api/v1/dead-letters/" + item.path("id").asLong());
    }

    /** The job's state per the API, or null when the API does not know the job (404). */
    public static String state(ApiClient api, String messageId) {
        HttpResponse<String> r = api.get("/api/v1/jobs/" + messageId);
        if (r.statusCode() == 404) {
            return null;
        }
        JsonNode job = api.getJson("/api/v1/jobs/" + messageId);
        return job.path("state").asText();
    }

    /** The run's jobs per state in Mailroom's database ({@code mail_job}, message ids starting with the prefix). */
    public static java.util.Map<String, Integer> statesInDatabase(dev.mailroom.it.support.PostgresServer postgres, String prefix)
            throws java.sql.SQLException {
        java.util.Map<String, Integer> out = new java.util.TreeMap<>();
        try (java.sql.Connection c = postgres.connect();
             java.sql.PreparedStatement s = c.prepareStatement(
                     "select state, count(*) from mail_job where message_id like ? group by state")) {
            s.setString(1, prefix + "%");
            try (java.sql.ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.put(r.getString(1), r.getInt(2));
                }
            }
        }
        return out;
    }

    /** The hex SHA-256 of {@code b}: how a dead letter's payload is compared with what was sent. */
    public static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
