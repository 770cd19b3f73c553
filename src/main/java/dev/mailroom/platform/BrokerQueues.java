package dev.mailroom.platform;

/**
 * Queue figures (depth, in flight, scheduled, consumers) of the broker Mailroom consumes from, whichever it is:
 * the broker embedded in WildFly ({@code platform.wildfly.EmbeddedBrokerQueues}, the default there) or a remote Artemis pair
 * ({@link RemoteBrokerQueues}, through Artemis's own management API). {@link BrokerQueuesProducer} picks one.
 * Everything else Mailroom does with the broker goes through JMS (the server's default connection factory) or
 * the MDBs' delivery switch ({@link ConsumerControl}), which work the same against both.
 */
public interface BrokerQueues {

    /** Figures of one queue; -1 where the broker did not answer. */
    record QueueFigures(String name, long depth, long inFlight, long scheduled, long consumers) { }

    /** The queue's figures now; throws {@link BrokerUnavailableException} when the broker does not answer. */
    QueueFigures figures(String queue);

    /**
     * The active broker's store disk (journal, paging, large messages): {@code usage} its used share (0 to 1),
     * {@code limit} the share above which the broker blocks every producer (Artemis {@code max-disk-usage}), and where
     * the journal is. Empty where it cannot be read (the embedded broker, no console answering).
     */
    default java.util.Optional<DiskFigures> disk() {
        return java.util.Optional.empty();
    }

    record DiskFigures(String broker, double usage, double limit, String journal) { }

    class BrokerUnavailableException extends RuntimeException {
        public BrokerUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
