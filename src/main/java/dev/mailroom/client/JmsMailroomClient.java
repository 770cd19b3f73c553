package dev.mailroom.client;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * {@link MailroomClient} over JMS. Immutable; {@link #toQueue} and {@link #withTraceparent} return configured copies.
 * Thread-safe when built over a {@link ConnectionFactory} (a context per send; pooled in a container); a client over a
 * {@link JMSContext} is as thread-safe as that context, i.e. not.
 */
public final class JmsMailroomClient implements MailroomClient {

    /** Artemis's duplicate-detection property ({@code Message.HDR_DUPLICATE_DETECTION_ID}). */
    public static final String DUPLICATE_ID_PROPERTY = "_AMQ_DUPL_ID";
    /** The W3C trace context property Mailroom reads. */
    public static final String TRACEPARENT_PROPERTY = "traceparent";
    /**
     * The JMS group id: a job's ordering key, so the broker delivers one key's jobs to one consumer, in order (Artemis
     * message groups); Mailroom's own record of each key's head keeps the order when one of them waits.
     */
    public static final String GROUP_ID_PROPERTY = "JMSXGroupID";

    private final ConnectionFactory factory;
    private final JMSContext context;
    /** The queue for jobs that name none: a destination given as such, or else a name. */
    private final Queue destination;
    private final String queue;
    private final Supplier<String> traceparents;
    private final boolean brokerDuplicateDetection;

    JmsMailroomClient(ConnectionFactory factory, JMSContext context, Queue destination, String queue,
            Supplier<String> traceparents) {
        this(factory, context, destination, queue, traceparents, true);
    }

    private JmsMailroomClient(ConnectionFactory factory, JMSContext context, Queue destination, String queue,
            Supplier<String> traceparents, boolean brokerDuplicateDetection) {
        if ((factory == null) == (context == null)) {
            throw new IllegalArgumentException("a connection factory or a JMS context, one of them");
        }
        this.factory = factory;
        this.context = context;
        this.destination = destination;
        this.queue = queue;
        this.traceparents = traceparents;
        this.brokerDuplicateDetection = brokerDuplicateDetection;
    }

    /** This client sending to the queue named {@code queue} the jobs that name none. */
    public JmsMailroomClient toQueue(String queue) {
        return new JmsMailroomClient(factory, context, null, Objects.requireNonNull(queue, "queue"), traceparents,
                brokerDuplicateDetection);
    }

    /**
     * This client sending to {@code queue} the jobs that name none: a destination looked up by the container, e.g.
     * the queue the application server binds for {@code mail.send} (docs/production.md), whose connection factories
     * map a bare name to a prefixed one.
     */
    public JmsMailroomClient toQueue(Queue queue) {
        return new JmsMailroomClient(factory, context, Objects.requireNonNull(queue, "queue"), null, traceparents,
                brokerDuplicateDetection);
    }

    /**
     * This client taking the caller's current {@code traceparent} from {@code source} (e.g. from OpenTelemetry's
     * propagator) for jobs that carry none; a null answer sends none.
     */
    public JmsMailroomClient withTraceparent(Supplier<String> source) {
        return new JmsMailroomClient(factory, context, destination, queue, source, brokerDuplicateDetection);
    }

    /**
     * This client without {@value #DUPLICATE_ID_PROPERTY}: a repeated idempotency key reaches Mailroom, whose own claim
     * sends one mail per key (the later job ends {@code duplicate_suppressed}). For sends inside a JTA transaction that
     * must not fail because of a repeated key: Artemis refuses a transaction holding a duplicate at its commit (a
     * rollback, or a heuristic outcome when the send is the transaction's only resource).
     */
    public JmsMailroomClient withoutBrokerDuplicateDetection() {
        return new JmsMailroomClient(factory, context, destination, queue, traceparents, false);
    }

    @Override
    public String send(MailJob job) {
        Objects.requireNonNull(job, "job");
        if (context != null) {
            sendWith(context, job);
        } else {
            try (JMSContext opened = factory.createContext()) {
                sendWith(opened, job);
            }
        }
        return job.messageId();
    }

    private void sendWith(JMSContext ctx, MailJob job) {
        TextMessage message = ctx.createTextMessage(job.json());
        try {
            if (brokerDuplicateDetection) {
                message.setStringProperty(DUPLICATE_ID_PROPERTY, job.idempotencyKey());
            }
            if (job.orderingKey().isPresent()) {
                message.setStringProperty(GROUP_ID_PROPERTY, job.orderingKey().get());
            }
            String traceparent = job.traceparent().orElseGet(() -> traceparents == null ? null : traceparents.get());
            if (traceparent != null) {
                message.setStringProperty(TRACEPARENT_PROPERTY, traceparent);
            }
        } catch (JMSException e) {
            throw new JMSRuntimeException(e.getMessage(), e.getErrorCode(), e);
        }
        ctx.createProducer()
                .setDeliveryMode(DeliveryMode.PERSISTENT)
                .send(job.queue().map(ctx::createQueue).orElseGet(
                        () -> destination != null ? destination : ctx.createQueue(queue)), message);
    }
}
