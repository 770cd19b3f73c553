package dev.mailroom.send;

import static dev.mailroom.testsupport.Proxies.proxy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.mailroom.job.Begin;
import dev.mailroom.job.HeldSend;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JmsMessages;
import dev.mailroom.job.JobAttempt;
import dev.mailroom.job.JobEvent;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.JobRecipient;
import dev.mailroom.job.Ledgers;
import dev.mailroom.job.MailJob;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.SendJob;
import dev.mailroom.ops.testing.MovableClock;
import dev.mailroom.platform.DatabaseWrites;
import dev.mailroom.platform.Destinations;
import dev.mailroom.platform.SchemaMigration;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.stopline.DeliveriesUnderWay;
import dev.mailroom.stopline.LineState;
import dev.mailroom.stopline.PauseReason;
import dev.mailroom.stopline.StopLine;
import dev.mailroom.testsupport.ComponentDatabase;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import jakarta.persistence.EntityManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Component test of a delivery that meets a line stopped for the database: the real {@link SendQueueConsumer} and
 * {@link RecoveryExecutor} over a recording broker, with a ledger whose every database call throws while the line is
 * stopped, then the real ledger on H2 admitting the copies. It proves the put-back commits with the broker alone (no
 * attempt of the job used) and that its copy, two put-backs down, still proves that it owns the job, while another
 * message with the same message_id stays a duplicate.
 */
class PutBackWithoutTheDatabaseComponentTest {

    private static final ProviderTraits SMTP = new ProviderTraits("smtp", false);
    private static final MovableClock CLOCK = new MovableClock(Clock.fixed(Instant.parse("2030-01-01T10:00:00Z"), ZoneOffset.UTC));

    /** The copies the executor put on the broker, as sent. */
    private final List<TextMessage> sent = new ArrayList<>();
    private final List<Long> delays = new ArrayList<>();
    /** Every call the ledger made of its database while the line was stopped. */
    private final List<String> databaseCalls = new ArrayList<>();
    private LineState line = LineState.stopped(PauseReason.DATABASE, "delivery on mail.send: connection refused",
            CLOCK.instant());
    private static ComponentDatabase db;
    private SendQueueConsumer consumer;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(List.of(MailJob.class, JobAttempt.class, JobEvent.class, HeldSend.class,
                JobRecipient.class));
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @BeforeEach
    void wire() {
        EntityManager down = proxy(EntityManager.class, (method, args) -> {
            databaseCalls.add(method);
            throw new jakarta.persistence.PersistenceException("the database does not answer: " + method);
        });
        RecoveryExecutor executor = new RecoveryExecutor();
        executor.jms = broker();
        executor.destinations = new Destinations() {
            @Override
            public Queue sendQueue(String name) {
                return proxy(Queue.class, (m, a) -> name);
            }
        };
        executor.ledger = Ledgers.on(down, CLOCK);
        executor.parser = new JobParser();
        executor.clock = CLOCK;
        executor.line = new StopLine() {
            @Override
            public LineState state(String queue) {
                return line;
            }

            @Override
            public Duration putBack() {
                return Duration.ofSeconds(1);
            }
        };
        consumer = new SendQueueConsumer() {
            @Override
            protected String queue() {
                return "mail.send";
            }
        };
        consumer.line = executor.line;
        consumer.executor = executor;
        consumer.schema = new SchemaMigration();
        consumer.underWay = new DeliveriesUnderWay(CLOCK);
        consumer.writes = new DatabaseWrites();
        consumer.sendService = new SendService() {
            @Override
            public void handle(Incoming in) {
                throw new AssertionError("a delivery went past the stopped line");
            }
        };
    }

    @Test
    void aDeliveryMetByALineStoppedForTheDatabaseIsPutBackWithoutAnyDatabaseCall() {
        TextMessage m0 = message("ID:m0", body("drain-1"), Map.of());

        assertThatCode(() -> consumer.onMessage(m0)).as("commits: no attempt of the job used").doesNotThrowAnyException();

        assertThat(databaseCalls).isEmpty();
        assertThat(sent).singleElement().satisfies(copy -> {
            assertThat(copy.getText()).isEqualTo(body("drain-1"));
            assertThat(copy.getStringProperty("mr_retry_of")).isEqualTo("ID:m0");
            assertThat(copy.getStringProperty(Incoming.DESCENDS_FROM_PROPERTY)).isEqualTo("ID:m0");
        });
        assertThat(delays).containsExactly(1000L);
    }

    /**
     * The job's first delivery was admitted (its admission commits on its own), then the database went away and the
     * delivery rolled back: its redelivery and the copy of it meet the stopped line, and the second copy is admitted.
     */
    @Test
    void theCopyTwoPutBacksDownOwnsTheJobAndTheDeferralIsOnItsTimelineWhileAnotherMessageStaysADuplicate()
            throws Exception {
        Incoming first = incoming(message("ID:m0", body("drain-2"), Map.of()));
        Begin begun = db.inTransaction(em -> Ledgers.on(em, CLOCK).begin(first, job(first), SMTP, true));
        assertThat(begun).isInstanceOf(Begin.Proceed.class);

        consumer.onMessage(message("ID:m0", body("drain-2"), Map.of("JMSXDeliveryCount", 2)));
        consumer.onMessage(sent.get(0));
        // a producer sends the job's message_id again while the line is stopped: put back the same way
        consumer.onMessage(message("ID:p0", body("drain-2"), Map.of()));
        assertThat(databaseCalls).isEmpty();
        assertThat(sent).hasSize(3);
        TextMessage twoDown = sent.get(1);
        TextMessage producersCopy = sent.get(2);
        assertThat(twoDown.getStringProperty(Incoming.DESCENDS_FROM_PROPERTY)).isEqualTo("ID:m0,ID:copy-1");

        line = LineState.RUNNING;
        Incoming copy = incoming(twoDown);
        Begin admitted = db.inTransaction(em -> Ledgers.on(em, CLOCK).begin(copy, job(copy), SMTP, true));
        assertThat(admitted).isInstanceOf(Begin.Proceed.class);
        MailJob j = jobRow(admitted.jobId());
        assertThat(j.getJmsMessageId()).as("the copy owns the job").isEqualTo("ID:copy-2");
        assertThat(j.getAttemptCount()).as("the first attempt never reached the provider; this is the second")
                .isEqualTo(2);
        assertThat(timeline(j.getId())).extracting(JobEvent::getType)
                .containsExactly("received", "attempt_started", "deferred", "attempt_abandoned", "attempt_started");
        assertThat(timeline(j.getId()).get(2).getDetail()).isEqualTo("put back 2 times by a stopped line without a"
                + " record (the database could not take one): JMS message ID:copy-2 descends from ID:m0, which owned"
                + " the job, and owns it now");

        for (Incoming duplicate : List.of(incoming(producersCopy), incoming(message("ID:p1", body("drain-2"), Map.of())))) {
            Begin refused = db.inTransaction(em -> Ledgers.on(em, CLOCK).begin(duplicate, job(duplicate), SMTP, true));
            assertThat(refused).as(duplicate.jmsMessageId()).isInstanceOf(Begin.DuplicateMessage.class);
        }
        assertThat(jobRow(j.getId()).getJmsMessageId()).isEqualTo("ID:copy-2");
        assertThat(timeline(j.getId())).extracting(JobEvent::getType).endsWith("duplicate_message_ignored",
                "duplicate_message_ignored");
    }

    @Test
    void aLineStoppedForAnotherCauseStillRecordsItsPutBack() {
        line = LineState.stopped(PauseReason.SYSTEMIC, "smtp: 535 bad credentials", CLOCK.instant());

        assertThatCode(() -> consumer.onMessage(message("ID:m0", body("drain-3"), Map.of())))
                .as("the record is written with the put-back, as before").isInstanceOf(RuntimeException.class);

        assertThat(databaseCalls).isNotEmpty();
    }

    // ---------------------------------------------------------------- the broker's side, recorded

    private JMSContext broker() {
        return proxy(JMSContext.class, (method, args) -> switch (method) {
            case "createTextMessage" -> message(null, (String) args[0], Map.of());
            case "createProducer" -> {
                JMSProducer[] producer = new JMSProducer[1];
                producer[0] = proxy(JMSProducer.class, (m, a) -> {
                    if (m.equals("setDeliveryDelay")) {
                        delays.add((Long) a[0]);
                    } else if (m.equals("send")) {
                        Message copy = (Message) a[1];
                        copy.setJMSMessageID("ID:copy-" + (sent.size() + 1));
                        sent.add((TextMessage) copy);
                    }
                    return producer[0];
                });
                yield producer[0];
            }
            default -> throw new UnsupportedOperationException(method);
        });
    }

    /** A text message with JMS message id {@code id} and {@code properties}, its headers and properties kept in a map. */
    private static TextMessage message(String id, String text, Map<String, Object> properties) {
        Map<String, Object> props = new HashMap<>(properties);
        String[] jmsId = {id};
        return proxy(TextMessage.class, (m, a) -> switch (m) {
            case "getText" -> text;
            case "getJMSMessageID" -> jmsId[0];
            case "setJMSMessageID" -> {
                jmsId[0] = (String) a[0];
                yield null;
            }
            case "getJMSRedelivered" -> props.containsKey("JMSXDeliveryCount");
            case "getJMSTimestamp" -> 0L;
            case "propertyExists" -> props.containsKey((String) a[0]);
            case "getStringProperty" -> props.get((String) a[0]) == null ? null : String.valueOf(props.get((String) a[0]));
            case "getIntProperty" -> ((Number) props.get((String) a[0])).intValue();
            case "getObjectProperty" -> props.get((String) a[0]);
            case "setStringProperty", "setIntProperty", "setLongProperty" -> {
                props.put((String) a[0], a[1]);
                yield null;
            }
            default -> throw new UnsupportedOperationException(m);
        });
    }

    private static Incoming incoming(Message m) throws Exception {
        return JmsMessages.incoming(m, "mail.send");
    }

    private static String body(String messageId) {
        return """
                {"schema_version": 1, "message_id": "%s", "idempotency_key": "%s", "from": "noreply@example.com",
                 "to": ["alice@example.com"], "subject": "s", "text": "t"}""".formatted(messageId, messageId);
    }

    private static SendJob job(Incoming in) {
        return ((ParseResult.Parsed) new JobParser().parse(in.body())).job();
    }

    private static MailJob jobRow(long id) {
        return db.inTransaction(em -> em.find(MailJob.class, id));
    }

    private static List<JobEvent> timeline(long jobId) {
        return db.inTransaction(em -> em.createQuery("select e from JobEvent e where e.jobId = :j order by e.id",
                JobEvent.class).setParameter("j", jobId).getResultList());
    }
}
