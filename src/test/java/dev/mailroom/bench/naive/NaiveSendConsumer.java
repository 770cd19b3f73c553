package dev.mailroom.bench.naive;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.annotation.JsonbProperty;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * The plain message-driven bean a team would write: in the container's JTA transaction, parse the job, insert one row,
 * call the provider Mailroom is configured with (same environment: {@code MAILROOM_PROVIDER}, {@code
 * MAILROOM_HTTP_BASE_URL}), return (commit). Same concurrency as Mailroom's SendConsumer: the same {@code maxSession}
 * expression and the same instance pool ({@code mailroom-send}, bound in jboss-ejb3.xml). No claim, no attempt
 * history, no point of no return, no envelope: what Mailroom's guarantees are measured against.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "java:/jms/queue/bench.naive"),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${env.MAILROOM_CONSUMERS:4}")
})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class NaiveSendConsumer implements MessageListener {

    private static final Jsonb JSON = JsonbBuilder.create();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .proxy(HttpClient.Builder.NO_PROXY).connectTimeout(Duration.ofSeconds(5)).build();
    private static final boolean HTTP_PROVIDER = "http".equals(System.getenv("MAILROOM_PROVIDER"));
    private static final String BASE_URL = System.getenv().getOrDefault("MAILROOM_HTTP_BASE_URL", "http://127.0.0.1:8025");

    @PersistenceContext(unitName = "naive")
    EntityManager em;

    /** The job's fields the bean uses (JSON-B ignores the others). */
    public static class Job {
        @JsonbProperty("message_id")
        public String messageId;
        public String from;
        public List<String> to;
        public String subject;
        public String text;
    }

    @Override
    public void onMessage(Message message) {
        Job job;
        try {
            job = JSON.fromJson(message.getBody(String.class), Job.class);
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
        NaiveMail mail = new NaiveMail();
        mail.messageId = job.messageId;
        mail.from = job.from;
        mail.to = String.join(", ", job.to);
        mail.subject = job.subject;
        mail.text = job.text;
        mail.sentAt = Instant.now();
        em.persist(mail);
        if (HTTP_PROVIDER) {
            post(job);
        } else {
            sandbox(job);
        }
    }

    /** What Mailroom's http provider (generic profile) does: POST the mail with its idempotency key. */
    private void post(Job job) {
        String body = JSON.toJson(job);
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
    private void sandbox(Job job) {
        boolean recorded = !em.createNativeQuery("select id from sandbox_mail where idempotency_key = ?1")
                .setParameter(1, job.messageId).getResultList().isEmpty();
        if (!recorded) {
            em.createNativeQuery("insert into sandbox_mail (idempotency_key, message_id, from_address, recipients, "
                            + "subject, text_body, recorded_at) values (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                    .setParameter(1, job.messageId).setParameter(2, job.messageId).setParameter(3, job.from)
                    .setParameter(4, String.join(", ", job.to)).setParameter(5, job.subject).setParameter(6, job.text)
                    .setParameter(7, java.sql.Timestamp.from(Instant.now())).executeUpdate();
        }
    }
}
