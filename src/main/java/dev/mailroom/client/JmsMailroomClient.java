package dev.mailroom.client;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
    /** Where bounded sends wait on the broker (daemon threads: a send given up must not keep a JVM alive). */
    private static final ExecutorService SENDERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "mailroom-client-send");
        t.setDaemon(true);
        return t;
    });

    private final ConnectionFactory factory;
    private final JMSContext context;
    /** The queue for jobs that name none: a destination given as such, or else a name. */
    private final Queue destination;
    private final String queue;
    private final Supplier<String> traceparents;
    private final boolean brokerDuplicateDetection;
    /** How long a send may wait for the broker; null: as long as the broker holds it (the JMS client's way). */
    private final Duration sendTimeout;

    JmsMailroomClient(ConnectionFactory factory, JMSContext context, Queue destination, String queue,
            Supplier<String> traceparents) {
        this(factory, context, destination, queue, traceparents, true, null);
    }

    private JmsMailroomClient(ConnectionFactory factory, JMSContext context, Queue destination, String queue,
            Supplier<String> traceparents, boolean brokerDuplicateDetection, Duration sendTimeout) {
        if ((factory == null) == (context == null)) {
            throw new IllegalArgumentException("a connection factory or a JMS context, one of them");
        }
        this.factory = factory;
        this.context = context;
        this.destination = destination;
        this.queue = queue;
        this.traceparents = traceparents;
        this.brokerDuplicateDetection = brokerDuplicateDetection;
        this.sendTimeout = sendTimeout;
    }

    /** This client sending to the queue named {@code queue} the jobs that name none. */
    public JmsMailroomClient toQueue(String queue) {
        return new JmsMailroomClient(factory, context, null, Objects.requireNonNull(queue, "queue"), traceparents,
                brokerDuplicateDetection, sendTimeout);
    }

    /**
     * This client sending to {@code queue} the jobs that name none: a destination looked up by the container, e.g.
     * the queue the application server binds for {@code mail.send} (docs/production.md), whose connection factories
     * map a bare name to a prefixed one.
     */
    public JmsMailroomClient toQueue(Queue queue) {
        return new JmsMailroomClient(factory, context, Objects.requireNonNull(queue, "queue"), null, traceparents,
                brokerDuplicateDetection, sendTimeout);
    }

    /**
     * This client taking the caller's current {@code traceparent} from {@code source} (e.g. from OpenTelemetry's
     * propagator) for jobs that carry none; a null answer sends none.
     */
    public JmsMailroomClient withTraceparent(Supplier<String> source) {
        return new JmsMailroomClient(factory, context, destination, queue, source, brokerDuplicateDetection, sendTimeout);
    }

    /**
     * This client without {@value #DUPLICATE_ID_PROPERTY}: a repeated idempotency key reaches Mailroom, whose own claim
     * sends one mail per key (the later job ends {@code duplicate_suppressed}). For sends inside a JTA transaction that
     * must not fail because of a repeated key: Artemis refuses a transaction holding a duplicate at its commit (a
     * rollback, or a heuristic outcome when the send is the transaction's only resource).
     */
    public JmsMailroomClient withoutBrokerDuplicateDetection() {
        return new JmsMailroomClient(factory, context, destination, queue, traceparents, false, sendTimeout);
    }

    /**
     * This client answering within {@code bound}: a send the broker holds back longer is given up and thrown as {@link
     * JobNotAcceptedException} ("not accepted, try later"). Artemis holds a producer's send without a bound while its
     * store disk is above {@code max-disk-usage} (and, under the {@code BLOCK} policy, while an address is full), and
     * the JMS API has no send timeout; a web request that submits a job must not hang on it. Only over a connection
     * factory: the send then runs on a thread of the client's, and the context it opened is closed when the bound
     * passes (JMS lets another thread close it), which ends the held send. A caller's own {@link JMSContext} (and its
     * transaction) belongs to the caller's thread.
     */
    public JmsMailroomClient withSendTimeout(Duration bound) {
        Objects.requireNonNull(bound, "bound");
        if (bound.isNegative() || bound.isZero()) {
            throw new IllegalArgumentException("a send timeout must be positive: " + bound);
        }
        if (factory == null) {
            throw new IllegalStateException("a send timeout needs a client over a connection factory: a caller's JMS"
                    + " context is used on the caller's thread only");
        }
        return new JmsMailroomClient(factory, null, destination, queue, traceparents, brokerDuplicateDetection, bound);
    }

    @Override
    public String send(MailJob job) {
        Objects.requireNonNull(job, "job");
        if (context != null) {
            sendWith(context, job);
        } else if (sendTimeout != null) {
            sendWithin(sendTimeout, job);
        } else {
            try (JMSContext opened = factory.createContext()) {
                sendWith(opened, job);
            }
        }
        return job.messageId();
    }

    /**
     * Opens a context and sends on a thread of {@link #SENDERS}, waiting at most {@code bound}; past it the context
     * is closed (on that pool too: a close may wait on the broker as well) and the job reported not accepted.
     */
    private void sendWithin(Duration bound, MailJob job) {
        AtomicReference<JMSContext> opened = new AtomicReference<>();
        AtomicBoolean givenUp = new AtomicBoolean();
        Future<?> sending = SENDERS.submit(() -> {
            try (JMSContext ctx = factory.createContext()) {
                opened.set(ctx);
                if (!givenUp.get()) { // opening it may have taken longer than the bound
                    sendWith(ctx, job);
                }
            }
        });
        try {
            sending.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            givenUp.set(true);
            JMSContext ctx = opened.get();
            if (ctx != null) {
                SENDERS.execute(ctx::close);
            }
            throw new JobNotAcceptedException(job.messageId(), bound);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new JMSRuntimeException(String.valueOf(e.getCause()), null, e.getCause());
        }
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
