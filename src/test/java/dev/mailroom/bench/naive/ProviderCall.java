package dev.mailroom.bench.naive;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

import jakarta.persistence.EntityManager;

/**
 * The provider call both plain beans make, the one Mailroom is configured with (same environment: {@code
 * MAILROOM_PROVIDER}, {@code MAILROOM_HTTP_BASE_URL}): the HTTP provider's POST with the job's idempotency key, or the
 * sandbox's select-and-insert in the caller's transaction.
 */
final class ProviderCall {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .proxy(HttpClient.Builder.NO_PROXY).connectTimeout(Duration.ofSeconds(5)).build();
    private static final boolean HTTP_PROVIDER = "http".equals(System.getenv("MAILROOM_PROVIDER"));
    private static final String BASE_URL = System.getenv().getOrDefault("MAILROOM_HTTP_BASE_URL", "http://127.0.0.1:8025");

    private ProviderCall() {
    }

    /** Sends the job; {@code em} joins the caller's transaction (the sandbox writes in it). */
    static void send(EntityManager em, BenchJob job) {
        if (HTTP_PROVIDER) {
            post(job);
        } else {
            sandbox(em, job);
        }
    }

    /** What Mailroom's http provider (generic profile) does: POST the mail with its idempotency key. */
    private static void post(BenchJob job) {
        String body = BenchJob.JSON.toJson(job);
        HttpRequest request = HttpRequest.newBuilder(URI.create(BASE_URL + "/messages")).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Idempotency-Key", job.messageId)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                throw new IllegalStateException("provider answered " + r.statusCode() + ": " + r.body());
            }
        } catch (IOException e) {
            throw new IllegalStateException("provider call failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * What Mailroom's sandbox provider does in the delivery's transaction: record the mail in its outbox
     * ({@code sandbox_mail}) unless its key is there already (the same select and insert, in SQL).
     */
    private static void sandbox(EntityManager em, BenchJob job) {
        boolean recorded = !em.createNativeQuery("select id from sandbox_mail where idempotency_key = ?1")
                .setParameter(1, job.messageId).getResultList().isEmpty();
        if (!recorded) {
            em.createNativeQuery("insert into sandbox_mail (idempotency_key, message_id, from_address, recipients, "
                            + "subject, text_body, recorded_at) values (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                    .setParameter(1, job.messageId).setParameter(2, job.messageId).setParameter(3, job.from)
                    .setParameter(4, String.join(", ", job.to)).setParameter(5, job.subject).setParameter(6, job.text)
                    .setParameter(7, Timestamp.from(Instant.now())).executeUpdate();
        }
    }
}
